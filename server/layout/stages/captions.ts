/**
 * Stage 6, captions: each caption nested in its picture or table (../captions.ts), and the items
 * that hold only furniture-band text listed as furniture candidates (server/convert/furniture.ts
 * decides across neighbouring pages).
 */
import type { BBox } from '../../../common/protocol';
import { attachCaptions } from '../blocks/captions';
import { bandHeadings } from './bandHeading';
import { italicRunningHeads } from './italicRunningHead';
import type { PageState, PageUnit } from './state';

/** Tolerance (points) for a band line's box lying inside an item's box. */
const BOX_TOLERANCE = 0.5;

export function placeCaptions(state: PageState): PageState {
  const t = BOX_TOLERANCE;
  const within = (b: BBox, u: BBox) => u.x0 >= b.x0 - t && u.x1 <= b.x1 + t && u.y0 >= b.y0 - t && u.y1 <= b.y1 + t;
  const items = bandHeadings(italicRunningHeads(attachCaptions(state.items), state.header, within), state, within);
  const furnitureCandidates: number[] = [];
  const bandBoxes = [...state.header, ...state.footer, ...state.margin].map((u) => u.bbox);
  const topBoxes = [...topRow(state), ...bottomRow(state)].map((u) => u.bbox);
  items.forEach((it, i) => {
    if (!it.bbox || it.cls === 'picture' || it.cls === 'table' || it.cls === 'document_index') return;
    const holds = (u: BBox) => within(it.bbox!, u);
    // A heading that opens the page is no running head, whatever the next page's head repeats.
    const heading = it.cls === 'section_header' || it.cls === 'title';
    if (bandBoxes.some(holds) || (!heading && topBoxes.some(holds))) furnitureCandidates.push(i);
  });
  return { ...state, items, furnitureCandidates };
}

/** The first row may stand this far down the page (AMS classes set their running heads at 12–13 %). */
const TOP_ROW_MAX = 0.16;
/** …and apart from the line under it by this share of its height. */
const TOP_ROW_GAP = 0.8;

/**
 * The page's first row of body lines when it stands apart from the rest, below the header band
 * (a running head set low: "SAMPLE PAPER … 19"), and not bold: only a candidate. It stays where the body
 * order put it; furniture.ts decides, by repetition on neighbouring pages or, on a page alone,
 * by form (row mates, a page number, a citation line).
 */
function topRow(state: PageState): PageUnit[] {
  const lines = state.body.filter((u) => u.kind === 'line' && !u.rotated);
  if (lines.length < 4) return [];
  const rowUnder = (above: PageUnit[]) => {
    const rest = lines.filter((u) => !above.includes(u));
    const top = Math.min(...rest.map((u) => u.bbox.y0));
    return rest.filter((u) => u.bbox.y0 <= top + 2);
  };
  const standsApart = (rows: PageUnit[]) => {
    // A bold row is a heading or a table's header row, not a running head.
    if (rows.some((u) => u.kind === 'line' && u.line.bold)) return false;
    const bottom = Math.max(...rows.map((u) => u.bbox.y1));
    if (bottom > state.height * TOP_ROW_MAX) return false;
    const lowest = rows.filter((u) => u.bbox.y1 >= bottom - 2);
    const h = Math.max(...lowest.map((u) => u.bbox.y1 - u.bbox.y0));
    const next = Math.min(...state.body.filter((u) => !rows.includes(u)).map((u) => u.bbox.y0));
    return next - bottom >= TOP_ROW_GAP * h;
  };
  const first = rowUnder([]);
  // The second row too when the two stand apart from the text as a block (a draft's "Draft
  // version … / Typeset using …", a page number over a journal's citation line): each is judged
  // by its own form in furniture.ts, so a short paragraph over a heading stays a paragraph.
  const two = [...first, ...rowUnder(first)];
  if (lines.length - two.length >= TOP_ROWS_MIN_LINES_UNDER && standsApart(two)) return two;
  return standsApart(first) ? first : [];
}

/** Two rows are taken together only over at least this many body lines. */
const TOP_ROWS_MIN_LINES_UNDER = 4;

/** The last row may start this far up the page (elsarticle's "Preprint submitted to …" at 91.8 %). */
const BOTTOM_ROW_MIN = 0.84;
/** …or this far with this many of its heights of white space over it. */
const BOTTOM_ROW_MIN_FAR = 0.8;
const BOTTOM_ROW_FAR_GAP = 2;
/** …under at least this many lines of body text. */
const BOTTOM_ROW_MIN_LINES_ABOVE = 4;

/**
 * The page's last row of body lines when it stands apart from the lines above it, above the
 * footer band (a journal footer set high: "Preprint submitted to Elsevier … June 8, 2018"), and
 * not bold: only a candidate, as topRow's. At the foot, furniture.ts keeps only a stamp, a row
 * with a row mate, a chapter–page number or a citation line not led by a footnote mark.
 */
function bottomRow(state: PageState): PageUnit[] {
  const lines = state.body.filter((u) => u.kind === 'line' && !u.rotated);
  if (lines.length < 4) return [];
  const bottom = Math.max(...lines.map((u) => u.bbox.y1));
  const last = lines.filter((u) => u.bbox.y1 >= bottom - 2);
  if (last.some((u) => u.kind === 'line' && u.line.bold)) return [];
  // A footer sits under a text block; a title page's imprint row ("0. Auflage, …" … "Martin
  // Thoma" under a two-line title) is its content.
  if (lines.length - last.length < BOTTOM_ROW_MIN_LINES_ABOVE) return [];
  const top = Math.min(...last.map((u) => u.bbox.y0));
  // Higher up, down to BOTTOM_ROW_MIN_FAR, only with twice its height of white space over it (a
  // journal's line under the footnotes: CJE's "ISSN … / © …" at 83.4 %): a footnote runs on at
  // line spacing under the one before it.
  if (top < state.height * BOTTOM_ROW_MIN_FAR) return [];
  const h = Math.max(...last.map((u) => u.bbox.y1 - u.bbox.y0));
  const above = Math.max(...state.body.filter((u) => !last.includes(u)).map((u) => u.bbox.y1));
  const minGap = top < state.height * BOTTOM_ROW_MIN ? BOTTOM_ROW_FAR_GAP : TOP_ROW_GAP;
  return top - above >= minGap * h ? last : [];
}
