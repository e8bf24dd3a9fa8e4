/** One region's DocTags and Markdown, for `folio/reparseRegion`: the same serializer and converter as whole pages. */
import type { DocItem } from '../model/items';
import { serializeItem } from '../doctags/serialize';
import { renderRegionMarkdown } from '../doctags/markdown';

export function renderRegion(item: DocItem): { doctags: string; markdown: string } {
  return { doctags: serializeItem(item), markdown: renderRegionMarkdown(item) };
}
