/**
 * Reading order of OCR lines on the upright page, by recursive XY-cut: a region splits into
 * columns at a wide vertical gutter, otherwise into two bands at its widest horizontal gap, until
 * single lines remain. Scans are rarely perfectly level, and on a 1°-skewed page the boxes of
 * neighbouring lines overlap in y, so the cut runs in a deskewed frame (rotated by the median
 * slope of the lines). Afterwards, pieces of one visual line that the detector split at a wide
 * space are merged back.
 */

/** A line as the ordering sees it: centre and extents in the deskewed upright frame. */
export interface OrderBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** A column gutter must be at least this many median line heights wide. */
export const COLUMN_GAP = 1.2;
/** Pieces of one line closer than this many line heights are merged. */
export const MERGE_GAP = 0.9;

export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Indices of `boxes` in reading order. */
export function readingOrder(boxes: readonly OrderBox[]): number[] {
  const lineH = median(boxes.map((b) => b.y1 - b.y0)) || 1;
  const out: number[] = [];
  cut(boxes, boxes.map((_, i) => i), lineH, out);
  return out;
}

function cut(boxes: readonly OrderBox[], ids: number[], lineH: number, out: number[]): void {
  if (ids.length <= 1) {
    out.push(...ids);
    return;
  }
  // Columns: the widest gap in the projection on x.
  const xGap = widestGap(ids, (i) => boxes[i]!.x0, (i) => boxes[i]!.x1);
  if (xGap && xGap.size >= COLUMN_GAP * lineH) {
    const left = ids.filter((i) => boxes[i]!.x1 <= xGap.at);
    const right = ids.filter((i) => boxes[i]!.x1 > xGap.at);
    cut(boxes, left, lineH, out);
    cut(boxes, right, lineH, out);
    return;
  }
  // Bands: the widest gap in the projection on y (ties: the first, keeping top before bottom).
  const yGap = widestGap(ids, (i) => boxes[i]!.y0, (i) => boxes[i]!.y1);
  if (yGap) {
    const top = ids.filter((i) => boxes[i]!.y1 <= yGap.at);
    const bottom = ids.filter((i) => boxes[i]!.y1 > yGap.at);
    cut(boxes, top, lineH, out);
    cut(boxes, bottom, lineH, out);
    return;
  }
  // Overlapping in both directions (pieces of one row, or a tangle): rows by centre, then x.
  const rows = [...ids].sort((a, b) => cy(boxes[a]!) - cy(boxes[b]!));
  const grouped: number[][] = [];
  for (const i of rows) {
    const row = grouped[grouped.length - 1];
    if (row && Math.abs(cy(boxes[i]!) - cy(boxes[row[0]!]!)) < lineH / 2) row.push(i);
    else grouped.push([i]);
  }
  for (const row of grouped) out.push(...row.sort((a, b) => boxes[a]!.x0 - boxes[b]!.x0));
}

function cy(b: OrderBox): number {
  return (b.y0 + b.y1) / 2;
}

/** Widest empty interval between the projections of the boxes, as its end (`at`) and size. */
function widestGap(ids: readonly number[], lo: (i: number) => number, hi: (i: number) => number): { at: number; size: number } | undefined {
  const sorted = [...ids].sort((a, b) => lo(a) - lo(b));
  let reach = hi(sorted[0]!);
  let best: { at: number; size: number } | undefined;
  for (let k = 1; k < sorted.length; k++) {
    const i = sorted[k]!;
    const gap = lo(i) - reach;
    if (gap > 0 && (!best || gap > best.size)) best = { at: reach + gap / 2, size: gap };
    reach = Math.max(reach, hi(i));
  }
  return best;
}

/**
 * Which consecutive lines (in reading order) are pieces of one visual line: same row (vertical
 * overlap at least half the smaller height) and a horizontal gap under MERGE_GAP line heights.
 * Returns groups of indices into `ordered`.
 */
export function sameLineGroups(ordered: readonly OrderBox[]): number[][] {
  const groups: number[][] = [];
  for (let i = 0; i < ordered.length; i++) {
    const b = ordered[i]!;
    const g = groups[groups.length - 1];
    if (g) {
      const a = ordered[g[g.length - 1]!]!;
      const h = Math.min(a.y1 - a.y0, b.y1 - b.y0);
      const overlap = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
      const gap = b.x0 - a.x1;
      if (overlap >= 0.5 * h && gap > -0.5 * h && gap < MERGE_GAP * h) {
        g.push(i);
        continue;
      }
    }
    groups.push([i]);
  }
  return groups;
}
