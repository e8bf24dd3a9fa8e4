/**
 * Reading order of OCR lines in the upright frame: a recursive XY-cut. Vertical gutters that
 * run through a whole group split it into columns (read left to right); otherwise the group is
 * split at its widest horizontal gap. Lines that cannot be separated are read top to bottom,
 * then left to right.
 */
import { boundsOf } from './geometry';
import type { Box, Point } from './types';

/**
 * Indices of `boxes` in reading order. With `quads` (each line's corners in the same frame,
 * top-left first) the page's skew is measured and undone first: on a page scanned 1° askew the
 * axis-aligned boxes of neighbouring full-width lines overlap and hide the row gaps.
 */
export function readingOrder(boxes: Box[], quads?: Point[][]): number[] {
  if (quads && quads.length === boxes.length) boxes = deskewed(quads) ?? boxes;
  const idx = boxes.map((_, i) => i);
  if (boxes.length < 2) return idx;
  const heights = boxes.map((b) => b.y1 - b.y0).sort((a, b) => a - b);
  const lineH = Math.max(1, heights[heights.length >> 1]);
  const out: number[] = [];
  cut(boxes, idx, lineH, out, 0);
  return out;
}

/** Boxes trimmed vertically so neighbours that touch do not hide a row gap. */
function core(b: Box): { y0: number; y1: number } {
  const t = (b.y1 - b.y0) * 0.1;
  return { y0: b.y0 + t, y1: b.y1 - t };
}

function gaps(intervals: [number, number][], minGap: number): { at: number; size: number }[] {
  const s = intervals.slice().sort((a, b) => a[0] - b[0]);
  const found: { at: number; size: number }[] = [];
  let end = s[0][1];
  for (let i = 1; i < s.length; i++) {
    if (s[i][0] - end >= minGap) found.push({ at: (s[i][0] + end) / 2, size: s[i][0] - end });
    end = Math.max(end, s[i][1]);
  }
  return found;
}

function cut(boxes: Box[], idx: number[], lineH: number, out: number[], depth: number): void {
  if (idx.length <= 1 || depth > 60) {
    out.push(...sortRows(boxes, idx));
    return;
  }
  // Any vertical strip no line's ink crosses separates columns. The ink extents are measured
  // from character positions and run a little long, so a 10 pt LaTeX gutter shows as only
  // ~0.5 × `lineH` (the ink core height, about half the font size); word spaces do not count
  // because DB keeps a line's words in one box.
  const xg = gaps(
    idx.map((i) => [boxes[i].x0, boxes[i].x1]),
    lineH * 0.3,
  );
  if (xg.length > 0) {
    const cuts = xg.map((g) => g.at);
    const parts: number[][] = cuts.map(() => []);
    parts.push([]);
    for (const i of idx) {
      const cx = (boxes[i].x0 + boxes[i].x1) / 2;
      let k = 0;
      while (k < cuts.length && cx > cuts[k]) k++;
      parts[k].push(i);
    }
    const filled = parts.filter((p) => p.length > 0);
    if (isGrid(boxes, filled, lineH)) {
      // A table: its cells share rows across the cuts, and a Markdown reader wants rows.
      out.push(...sortRows(boxes, idx));
      return;
    }
    for (const p of filled) cut(boxes, p, lineH, out, depth + 1);
    return;
  }
  const yg = gaps(
    idx.map((i) => {
      const c = core(boxes[i]);
      return [c.y0, c.y1] as [number, number];
    }),
    0.5,
  );
  if (yg.length > 0) {
    // Only the widest gap: splitting at every row gap would interleave columns that share rows.
    const g = yg.reduce((a, b) => (b.size > a.size ? b : a));
    const top = idx.filter((i) => (core(boxes[i]).y0 + core(boxes[i]).y1) / 2 < g.at);
    const bottom = idx.filter((i) => (core(boxes[i]).y0 + core(boxes[i]).y1) / 2 >= g.at);
    if (top.length > 0 && bottom.length > 0) {
      cut(boxes, top, lineH, out, depth + 1);
      cut(boxes, bottom, lineH, out, depth + 1);
      return;
    }
  }
  out.push(...sortRows(boxes, idx));
}

/**
 * Whether columns found by a cut are a table's: most lines have a partner on the same row in
 * another column, and some column is narrow (under ~6 em; text columns are wider, and two text
 * columns set on the same baseline grid would otherwise look like a table).
 */
function isGrid(boxes: Box[], parts: number[][], lineH: number): boolean {
  if (parts.length < 2) return false;
  const width = (p: number[]) => Math.max(...p.map((i) => boxes[i].x1)) - Math.min(...p.map((i) => boxes[i].x0));
  if (!parts.some((p) => width(p) < 12 * lineH)) return false;
  const cy = (i: number) => (boxes[i].y0 + boxes[i].y1) / 2;
  let paired = 0;
  let total = 0;
  parts.forEach((p, k) => {
    for (const i of p) {
      total++;
      if (parts.some((q, m) => m !== k && q.some((j) => Math.abs(cy(i) - cy(j)) < 0.6 * lineH))) paired++;
    }
  });
  return paired >= 0.6 * total;
}

/** Top to bottom; boxes whose vertical centres are within half a line are one row, read left to right. */
function sortRows(boxes: Box[], idx: number[]): number[] {
  const s = idx.slice().sort((a, b) => boxes[a].y0 + boxes[a].y1 - boxes[b].y0 - boxes[b].y1);
  const rows: number[][] = [];
  for (const i of s) {
    const cy = (boxes[i].y0 + boxes[i].y1) / 2;
    const row = rows[rows.length - 1];
    if (row) {
      const r = boxes[row[0]];
      if (Math.abs(cy - (r.y0 + r.y1) / 2) < (r.y1 - r.y0) / 2) {
        row.push(i);
        continue;
      }
    }
    rows.push([i]);
  }
  return rows.flatMap((r) => r.sort((a, b) => boxes[a].x0 - boxes[b].x0));
}

/** Line quads turned by minus the median baseline angle; undefined when no line is long enough to tell. */
function deskewed(quads: Point[][]): Box[] | undefined {
  const angles: number[] = [];
  for (const [tl, tr, , bl] of quads) {
    const w = Math.hypot(tr[0] - tl[0], tr[1] - tl[1]);
    const h = Math.hypot(bl[0] - tl[0], bl[1] - tl[1]);
    if (w > 3 * h) angles.push(Math.atan2(tr[1] - tl[1], tr[0] - tl[0]));
  }
  if (angles.length === 0) return undefined;
  angles.sort((a, b) => a - b);
  const a = -angles[angles.length >> 1];
  const cos = Math.cos(a),
    sin = Math.sin(a);
  return quads.map((q) => boundsOf(q.map(([x, y]) => [x * cos - y * sin, x * sin + y * cos] as Point)));
}
