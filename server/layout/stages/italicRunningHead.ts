/**
 * An italic running head (issue 31, furniture): a book or manual sets its running head in the
 * top band as one short italic line ("fonts-conf" over fontconfig's pages), a size above the body,
 * so the classifier took it for a heading (`### fonts-conf`) and furniture.ts, which never drops
 * a heading, kept it. A header-band line (in the band, standing apart from the body and drawn
 * apart from it: stage 3) that is italic, not bold, one line of a few words and classified as a
 * heading is a page header, on a page alone as on a page with neighbours (where it repeats).
 * A heading that opens a page is upright or bold; a bold italic band line stays a heading.
 */
import type { DocItem } from '../../model/items';
import type { BBox } from '../../../common/protocol';
import type { PageUnit } from './state';
import { isUrwItalic } from '../fontStyle';

/** URW's italics (fontStyle.ts), read here for band lines only. */
function urwItalic(s: { fontName: string }): boolean {
  return isUrwItalic(s.fontName);
}

/** A running head has at most this many words. */
const RUNNING_HEAD_MAX_WORDS = 6;

/** `items` with each italic heading held by one header-band line turned into a page header. */
export function italicRunningHeads(
  items: DocItem[],
  header: PageUnit[],
  holds: (b: BBox, u: BBox) => boolean,
): DocItem[] {
  return items.map((it) => {
    if (it.cls !== 'section_header' || !it.bbox) return it;
    if (it.text.trim().split(/\s+/).length > RUNNING_HEAD_MAX_WORDS) return it;
    const lines = header.filter((u) => holds(it.bbox!, u.bbox));
    if (lines.length !== 1) return it;
    const u = lines[0]!;
    if (u.kind !== 'line' || u.rotated || u.line.bold || !(u.line.italic || u.line.spans.every(urwItalic))) return it;
    // The item is that line and nothing more (no body line joined to it).
    const b = it.bbox;
    if (b.y1 - b.y0 > (u.bbox.y1 - u.bbox.y0) * 1.5) return it;
    const head: DocItem = { ...it, cls: 'page_header' };
    delete head.level;
    return head;
  });
}
