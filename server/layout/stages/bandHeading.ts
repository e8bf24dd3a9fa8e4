/**
 * A heading in the band outside the text block (issue 40, furniture on a page alone): a journal's
 * name set large and bold over the text ("Northwind Review"), a publisher's line bold at the foot,
 * a logo's wordmark. The classifier reads size and weight, so these became `##`–`####` headings,
 * and furniture.ts never drops a heading. What a reader sees instead is where the line sits: in
 * the top or bottom band, standing apart (stage 3: the band line is apart from the body and drawn
 * apart from it), and farther from the text block than a heading stands from its own section.
 *
 * - At the top, a heading is followed by its section at less than its own height of white space
 *   (LaTeX's \section leaves ~0.8 of it, a browser's h2 ~0.8, Word's Heading 1 ~1); a running
 *   head or a masthead sits a head separation away (fancyhdr's 25 pt under a 10–17 pt line).
 * - At the foot, nothing of the page follows a heading there: a heading closes no page, so a
 *   heading-styled line alone in the bottom band, apart from the text above it, is a footer.
 *
 * A title is not touched (a title page's centred title may stand alone at the top), nor a
 * heading of more than two lines, nor one that holds a body line as well as band lines.
 */
import type { BBox } from '../../../common/protocol';
import type { DocItem } from '../../model/items';
import type { PageState, PageUnit } from './state';

/** White space between a top-band heading and the text block, in its line heights, beyond which it is a running head. */
const TOP_GAP_LINES = 1.5;
/** …and under a bottom-band heading's text above it. */
const FOOT_GAP_LINES = 1;
/** A band heading has at most this many lines… */
const MAX_LINES = 2;
/** …and this many words (a running head, a wordmark, a publisher's line). */
const MAX_WORDS = 12;

/** `items` with each section heading that sits in a band outside the text block turned into furniture. */
export function bandHeadings(items: DocItem[], state: PageState, holds: (b: BBox, u: BBox) => boolean): DocItem[] {
  return items.map((it) => {
    if (it.cls !== 'section_header' || !it.bbox) return it;
    if (it.text.trim().split(/\s+/).length > MAX_WORDS) return it;
    const b = it.bbox;
    const atTop = bandLines(state.header, b, holds);
    const atFoot = atTop.length ? [] : bandLines(state.footer, b, holds);
    const lines = atTop.length ? atTop : atFoot;
    if (!lines.length || lines.length > MAX_LINES) return it;
    // Every unit the item holds is a band line: no body line was joined to it.
    if (state.body.some((u) => holds(b, u.bbox))) return it;
    const h = Math.max(...lines.map((u) => u.bbox.y1 - u.bbox.y0));
    // The nearest line under it (over it at the foot), in the band or the body: a band line right
    // under it makes it one line of a band block (a form's header box, a masthead's lines), judged
    // as before.
    const others = [...state.body, ...(atTop.length ? state.header : state.footer)].filter((u) => !lines.includes(u));
    const gap = atTop.length ? gapBelow(b, others) : gapAbove(b, others);
    if (gap < (atTop.length ? TOP_GAP_LINES : FOOT_GAP_LINES) * h) return it;
    const furniture: DocItem = { ...it, cls: atTop.length ? 'page_header' : 'page_footer' };
    delete furniture.level;
    return furniture;
  });
}

function bandLines(band: PageUnit[], b: BBox, holds: (b: BBox, u: BBox) => boolean): PageUnit[] {
  return band.filter((u) => u.kind === 'line' && !u.rotated && holds(b, u.bbox));
}

/** White space from the box down to the nearest unit under it (anywhere across: the block, not a column). */
function gapBelow(b: BBox, body: PageUnit[]): number {
  const under = body.filter((u) => u.bbox.y0 >= b.y1 - 1).map((u) => u.bbox.y0 - b.y1);
  return under.length ? Math.max(0, Math.min(...under)) : Infinity;
}

/** White space from the nearest unit over the box up to it. */
function gapAbove(b: BBox, body: PageUnit[]): number {
  const over = body.filter((u) => u.bbox.y1 <= b.y0 + 1).map((u) => b.y0 - u.bbox.y1);
  return over.length ? Math.max(0, Math.min(...over)) : Infinity;
}
