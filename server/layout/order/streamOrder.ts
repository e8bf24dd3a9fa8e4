/**
 * Reading order from the content stream where it agrees with the page (issue 15). Geometry
 * (xycut.ts) proposes an order; the stream order of the same lines is taken instead when every
 * step of it is a move a reader makes on a page:
 *   - the next line below, overlapping horizontally (same column);
 *   - the next run on the same row to the right, unless a column gutter lies between (two
 *     columns written row by row are interleaved, not read);
 *   - up and to the right, no higher than the top of the current band (the next column);
 *   - down and to the left, below everything read in the band so far (a new band: below a
 *     title block, a wide figure, the end of the columns), unless the column just left goes on
 *     right under its last line, read later.
 * One other step (back up the same column, back left on the same row, into a band already
 * read) and the stream is out of order: geometry wins for the whole page. The stream fixes what
 * geometry cannot tell: a centred author line that sits above one column, a caption beside a
 * float, the order of side-by-side pieces that no gutter separates.
 */
import type { BBox } from '../../../common/protocol';

export interface Gutter {
  x0: number;
  x1: number;
}

/** Whether the boxes, taken in the given order, read like a left-to-right page. */
export function plausibleOrder(boxes: BBox[], gutters: Gutter[]): boolean {
  if (boxes.length < 2) return true;
  let bandTop = boxes[0].y0;
  let bandBottom = boxes[0].y1;
  // x-range of the column being read (since the last column or band change).
  let colX0 = boxes[0].x0;
  let colX1 = boxes[0].x1;
  for (let i = 1; i < boxes.length; i++) {
    const a = boxes[i - 1];
    const b = boxes[i];
    const h = Math.min(a.y1 - a.y0, b.y1 - b.y0);
    const tol = Math.max(1, 0.4 * h);
    const sameRow = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0) > 0.5 * h;
    const inColumn = Math.min(colX1, b.x1) - Math.max(colX0, b.x0) > 0;
    if (sameRow) {
      if (b.x0 < a.x1 - tol) return false;
      if (gutters.some((g) => a.x1 <= g.x0 + 1 && b.x0 >= g.x1 - 1)) return false;
    } else if (b.y0 >= a.y1 - tol && inColumn) {
      // The next line of the same column; below a full-width line (across a gutter) a new band.
      if (crosses(a, gutters) && !crosses(b, gutters)) {
        bandTop = b.y0;
        bandBottom = b.y1;
        colX0 = b.x0;
        colX1 = b.x1;
        continue;
      }
    } else if (b.y0 >= a.y1 - tol && b.x1 <= colX0 + tol) {
      // Down and to the left: a new band, below all of the band read so far…
      if (b.y0 < bandBottom - tol) return false;
      // …where the column just left ends: a line read later that starts under the last one,
      // within half a line of it, is that column going on (an OCR line order that cut the page
      // across at a paragraph's end in one column and a heading's space in the other).
      const lineH = a.y1 - a.y0;
      const goesOn = boxes
        .slice(i + 1)
        .some((c) => c.x0 < a.x1 && c.x1 > a.x0 && c.y0 >= a.y1 - tol && c.y0 - a.y1 < 0.5 * lineH);
      if (goesOn) return false;
      bandTop = b.y0;
      bandBottom = b.y1;
      colX0 = b.x0;
      colX1 = b.x1;
      continue;
    } else if (b.x0 >= colX1 - tol && b.y0 >= bandTop - tol) {
      // The next column of this band (its top may be higher or lower).
      colX0 = b.x0;
      colX1 = b.x1;
    } else return false;
    colX0 = Math.min(colX0, b.x0);
    colX1 = Math.max(colX1, b.x1);
    bandBottom = Math.max(bandBottom, b.y1);
  }
  return true;
}

function crosses(b: BBox, gutters: Gutter[]): boolean {
  return gutters.some((g) => b.x0 < g.x0 - 0.5 && b.x1 > g.x1 + 0.5);
}

/**
 * The geometric order `geo`, with its stream-ordered units (`streamOf` defined: text lines)
 * put in stream order when that order is plausible. Units without a stream position (pictures,
 * tables) keep their place before the unit that followed them geometrically.
 */
export function followStream<T extends { unit: { bbox: BBox } }>(
  geo: T[],
  streamOf: (t: T) => number | undefined,
  gutters: Gutter[],
): T[] {
  const lines = geo.filter((t) => streamOf(t) !== undefined);
  if (lines.length < 3) return geo;
  const byStream = [...lines].sort((a, b) => streamOf(a)! - streamOf(b)!);
  if (byStream.every((t, i) => t === lines[i])) return geo;
  if (
    !plausibleOrder(
      byStream.map((t) => t.unit.bbox),
      gutters,
    )
  )
    return geo;
  const before = new Map<T, T[]>();
  let pending: T[] = [];
  for (const t of geo) {
    if (streamOf(t) === undefined) pending.push(t);
    else if (pending.length) {
      before.set(t, pending);
      pending = [];
    }
  }
  const out: T[] = [];
  for (const t of byStream) out.push(...(before.get(t) ?? []), t);
  out.push(...pending);
  return out;
}
