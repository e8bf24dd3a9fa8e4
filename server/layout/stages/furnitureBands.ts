/**
 * Stage 3, furniture bands: page headers and footers (in the top or bottom band, standing apart
 * from the body and drawn apart from it in the content stream) and text turned up a side margin
 * leave the body; the rest is the body the XY-cut orders.
 */
import { marginLineNumbers } from './lineNumbers';
import { lineStreamPosition, type PageState, type PageUnit } from './state';

/** Share of the page height at the top and bottom where page headers and footers live. */
export const FURNITURE_BAND = 0.08;
/** A band line stands apart when the gap to the body is at least this share of its height… */
const APART_HEIGHT_SHARE = 0.6;
/** …and at least this many points. */
const APART_MIN_GAP = 3;
/** A line drawn among the first or last this many body lines of the stream is drawn apart. */
const STREAM_EDGE_LINES = 3;
/** A line drawn right before or after a body line within this many of its heights is body. */
const STREAM_NEIGHBOUR_PITCH = 2.5;
/** Side-margin text stands at least this far (points) outside the body's lines. */
const MARGIN_CLEARANCE = 2;
/** Margin text is told from the body only on a page with at least this many body lines. */
const MARGIN_MIN_BODY_LINES = 3;

export function findFurnitureBands(state: PageState): PageState {
  const { units, height: H } = state;
  // Page headers and footers stand apart: in the band, and separated from the body by more than
  // a line's spacing (the first line of a column that starts high on the page is not furniture).
  const apart = (u: PageUnit, below: boolean, own: PageUnit[] = [u]) => {
    const h = u.bbox.y1 - u.bbox.y0;
    let gap = Infinity;
    for (const v of units) {
      if (own.includes(v) || Math.min(u.bbox.x1, v.bbox.x1) - Math.max(u.bbox.x0, v.bbox.x0) <= 0) continue;
      // By middles: OCR'd line boxes of a tight column overlap the line before them, and that
      // line is still the one right above (a column's last line is not a footer).
      const dc = (v.bbox.y0 + v.bbox.y1) / 2 - (u.bbox.y0 + u.bbox.y1) / 2;
      if (below && (v.bbox.y0 >= u.bbox.y1 - 1 || dc > APART_HEIGHT_SHARE * h))
        gap = Math.min(gap, Math.max(0, v.bbox.y0 - u.bbox.y1));
      if (!below && (v.bbox.y1 <= u.bbox.y0 + 1 || -dc > APART_HEIGHT_SHARE * h))
        gap = Math.min(gap, Math.max(0, u.bbox.y0 - v.bbox.y1));
    }
    return gap >= Math.max(APART_MIN_GAP, h * APART_HEIGHT_SHARE);
  };
  // A line the producer drew among the body lines, right before the line under it (the first
  // line of a column at the head of the page) or right after the line above it (the last list
  // item at a column's foot), is body however apart it stands: a running header or footer is
  // drawn first, last, or on its own.
  const streamLines = units
    .filter((u) => lineStreamPosition(state, u) !== undefined)
    .sort((a, b) => lineStreamPosition(state, a)! - lineStreamPosition(state, b)!);
  const drawnApart = (u: PageUnit, atTop: boolean, own: PageUnit[] = [u]) => {
    const k = streamLines.indexOf(u);
    // Drawn first or last (three body lines on either side at least): a header or footer.
    if (k < STREAM_EDGE_LINES || k > streamLines.length - STREAM_EDGE_LINES - 1) return true;
    const v = streamLines[atTop ? k + 1 : k - 1];
    if (!v || (v !== u && own.includes(v))) return true;
    const h = u.bbox.y1 - u.bbox.y0;
    const gap = atTop ? v.bbox.y0 - u.bbox.y1 : u.bbox.y0 - v.bbox.y1;
    const overlapX = Math.min(u.bbox.x1, v.bbox.x1) - Math.max(u.bbox.x0, v.bbox.x0) > 0;
    return !(overlapX && gap >= -1 && gap <= STREAM_NEIGHBOUR_PITCH * h);
  };
  const inTop = (u: PageUnit) => u.bbox.y1 <= H * FURNITURE_BAND;
  const inBottom = (u: PageUnit) => u.bbox.y0 >= H * (1 - FURNITURE_BAND);
  // A header or footer of several lines (a two-line manual footer, a stamp block) stands apart
  // as a block: its lines are judged by the block's edge toward the body, and a line drawn right
  // after another line of its own block is still drawn apart from the body.
  const topBlocks = bandBlocks(units.filter(inTop));
  const bottomBlocks = bandBlocks(units.filter(inBottom));
  const blockApart = (u: PageUnit, below: boolean) => {
    const block = (below ? topBlocks : bottomBlocks).get(u) ?? [u];
    const edge = below
      ? block.reduce((a, b) => (b.bbox.y1 > a.bbox.y1 ? b : a))
      : block.reduce((a, b) => (b.bbox.y0 < a.bbox.y0 ? b : a));
    return apart(edge, below, block);
  };
  const header = units
    .filter((u) => inTop(u) && blockApart(u, true) && drawnApart(u, true, topBlocks.get(u)))
    .sort((a, b) => a.bbox.x0 - b.bbox.x0);
  const footer = units
    .filter(
      (u) => inBottom(u) && !header.includes(u) && blockApart(u, false) && drawnApart(u, false, bottomBlocks.get(u)),
    )
    .sort((a, b) => a.bbox.x0 - b.bbox.x0);
  // Text turned up a side margin, clear of the body's lines (a "Downloaded from …" or "Accepted
  // manuscript" stamp, an arXiv identifier): furniture candidates, out of the body's flow, where
  // an XY-cut would have put them between two lines of a paragraph.
  const inBands = (u: PageUnit) => header.includes(u) || footer.includes(u);
  const uprightLines = units.filter((u) => u.kind === 'line' && !u.rotated && !inBands(u));
  const bodyX0 = Math.min(...uprightLines.map((u) => u.bbox.x0));
  const bodyX1 = Math.max(...uprightLines.map((u) => u.bbox.x1));
  const margin = units
    .filter(
      (u) =>
        u.kind === 'line' &&
        u.rotated &&
        !inBands(u) &&
        uprightLines.length >= MARGIN_MIN_BODY_LINES &&
        (u.bbox.x1 <= bodyX0 - MARGIN_CLEARANCE || u.bbox.x0 >= bodyX1 + MARGIN_CLEARANCE),
    )
    .sort((a, b) => a.bbox.x0 - b.bbox.x0 || a.bbox.y0 - b.bbox.y0);
  // A draft's line numbers down a side margin (lineNumbers.ts) leave the body as margin text too.
  margin.push(
    ...marginLineNumbers(
      units.filter((u) => !inBands(u) && !margin.includes(u)),
      state.width,
    ),
  );
  const body = units.filter((u) => !inBands(u) && !margin.includes(u));
  return { ...state, header, footer, margin, body };
}

/** Band lines of one block stand at most this many line heights apart. */
const BAND_BLOCK_GAP = 0.6;

/**
 * The band's lines grouped into blocks: lines chained to each other, each within
 * BAND_BLOCK_GAP of its own height from the next and overlapping it across. A line alone is its
 * own block (absent from the map).
 */
function bandBlocks(lines: PageUnit[]): Map<PageUnit, PageUnit[]> {
  const blockOf = new Map<PageUnit, PageUnit[]>();
  const sorted = [...lines].sort((a, b) => a.bbox.y0 - b.bbox.y0);
  for (const u of sorted) {
    const h = u.bbox.y1 - u.bbox.y0;
    const prev = sorted.find((v) => {
      if (v === u || !blockOf.has(v) || v.bbox.y0 >= u.bbox.y0) return false;
      const gap = u.bbox.y0 - v.bbox.y1;
      const across = Math.min(u.bbox.x1, v.bbox.x1) - Math.max(u.bbox.x0, v.bbox.x0) > 0;
      return across && gap <= BAND_BLOCK_GAP * h;
    });
    const block = prev ? blockOf.get(prev)! : [];
    block.push(u);
    blockOf.set(u, block);
  }
  for (const [u, block] of blockOf) if (block.length < 2) blockOf.delete(u);
  return blockOf;
}
