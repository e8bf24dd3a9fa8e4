/**
 * The input of every exporter (DoclingDocument, chunks, Markdown with embedded pictures): the
 * converted pages as document-model items with exact boxes. `PageResult` carries the page's
 * DocTags and its regions (boxes in points, one per item, same order); the items come back from
 * the DocTags with the one parser, so an export says exactly what the Markdown says.
 */
import type { PageResult } from '../protocol';
import type { DocItem } from '../doctags/types';
import { fromGrid } from '../doctags/types';
import { parseDocTags } from '../doctags/parse';

export interface ExportPage {
  /** 1-based page number. */
  page: number;
  /** Page size in points (0 when the page failed). */
  width: number;
  height: number;
  /** Items in reading order; `bbox` always set (points, top-left origin). */
  items: DocItem[];
  /** Rendered page image, when the conversion rendered one. */
  image?: { path: string; width: number; height: number };
}

/**
 * The picture link a region wrote into the page's Markdown (`![alt](target)`), so the exporters
 * see the same file the Markdown links; undefined when the picture wrote `<!-- image -->`.
 */
function linkedImage(markdown: string, start: number, end: number): string | undefined {
  const block = markdown.slice(start, end);
  const m = /!\[(?:[^\]\\]|\\.)*\]\((<[^>]*>|[^)\s]+)\)/.exec(block);
  if (!m) return undefined;
  const target = m[1].startsWith('<') ? m[1].slice(1, -1) : m[1];
  if (target.startsWith('data:')) return target;
  try {
    return decodeURI(target);
  } catch {
    return target;
  }
}

export function exportPageFromResult(p: PageResult): ExportPage {
  const parsed = p.doctags ? (parseDocTags(p.doctags)[0]?.items ?? []) : [];
  const size = { width: p.width || 1, height: p.height || 1 };
  const items = parsed.map((it, i): DocItem => {
    const region = p.regions[i];
    const same = region !== undefined && region.cls === it.cls;
    const out: DocItem = { ...it, bbox: same ? region.bbox : it.grid ? fromGrid(it.grid, size) : { x0: 0, y0: 0, x1: 0, y1: 0 } };
    if (same) out.id = region.id;
    if ((it.cls === 'picture' || it.cls === 'chart') && same && region.mdRange) {
      const img = linkedImage(p.markdown, region.mdRange.start, region.mdRange.end);
      if (img) out.imagePath = img;
    }
    return out;
  });
  const page: ExportPage = { page: p.page, width: p.width, height: p.height, items };
  if (p.image && p.imageWidth && p.imageHeight) page.image = { path: p.image, width: p.imageWidth, height: p.imageHeight };
  return page;
}
