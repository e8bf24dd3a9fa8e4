/**
 * Tables drawn with ruling lines: rules that touch each other form a frame; the distinct x of its
 * vertical rules and y of its horizontal rules are the grid; a grid line missing between two
 * cells (no rule covers that stretch) means the cells are merged.
 */
import type { Rule } from '../../model/content';
import type { Grid } from './grid';

interface HSeg {
  y: number;
  x0: number;
  x1: number;
}
interface VSeg {
  x: number;
  y0: number;
  y1: number;
}

/** Points within which two rule positions count as the same line (rules are drawn ~0.5–1.5 pt wide). */
const TOL = 2;
/** Gap between the two lines of a double rule (≈ 2–3 pt) that a column rule may jump. */
const DOUBLE_GAP = 3.5;
/** More rules than this on a page is a drawing (a chart, a hatch pattern), not a table frame. */
const MAX_RULES = 4000;

function split(rules: Rule[]): { h: HSeg[]; v: VSeg[] } {
  const h: HSeg[] = [];
  const v: VSeg[] = [];
  for (const r of rules) {
    const w = r.x1 - r.x0;
    const t = r.y1 - r.y0;
    if (w >= 3 * t && t <= 3 && w >= 4) h.push({ y: (r.y0 + r.y1) / 2, x0: r.x0, x1: r.x1 });
    else if (t >= 3 * w && w <= 3 && t >= 4) v.push({ x: (r.x0 + r.x1) / 2, y0: r.y0, y1: r.y1 });
  }
  return { h, v };
}

/** Groups of rules that touch, each with at least one horizontal and one vertical rule. */
function frames(h: HSeg[], v: VSeg[]): { h: HSeg[]; v: VSeg[] }[] {
  const n = h.length + v.length;
  const parent = Array.from({ length: n }, (_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]!]!;
    return i;
  };
  const join = (a: number, b: number) => {
    parent[find(a)] = find(b);
  };
  for (let i = 0; i < h.length; i++) {
    const a = h[i]!;
    for (let j = 0; j < v.length; j++) {
      const b = v[j]!;
      if (b.x >= a.x0 - TOL && b.x <= a.x1 + TOL && a.y >= b.y0 - TOL && a.y <= b.y1 + TOL) join(i, h.length + j);
    }
    for (let j = i + 1; j < h.length; j++) {
      const b = h[j]!;
      if (Math.abs(a.y - b.y) <= TOL && a.x0 <= b.x1 + TOL && b.x0 <= a.x1 + TOL) join(i, j);
    }
  }
  for (let i = 0; i < v.length; i++)
    for (let j = i + 1; j < v.length; j++) {
      const a = v[i]!;
      const b = v[j]!;
      // A column rule broken where a double rule crosses it (a header boxed by double rules:
      // each row's verticals stop at the inner line) is one rule: the header and the body are
      // one frame, not a one-row table whose text spills out as paragraphs.
      if (Math.abs(a.x - b.x) <= TOL && a.y0 <= b.y1 + DOUBLE_GAP && b.y0 <= a.y1 + DOUBLE_GAP)
        join(h.length + i, h.length + j);
    }
  const groups = new Map<number, { h: HSeg[]; v: VSeg[] }>();
  const get = (i: number) => {
    const k = find(i);
    let g = groups.get(k);
    if (!g) groups.set(k, (g = { h: [], v: [] }));
    return g;
  };
  h.forEach((s, i) => get(i).h.push(s));
  v.forEach((s, j) => get(h.length + j).v.push(s));
  return [...groups.values()].filter((g) => g.h.length > 0 && g.v.length > 0);
}

/** Sorted distinct positions: values closer than `tol` collapse into their mean. */
function cluster(values: number[], tol: number): number[] {
  const s = values.slice().sort((a, b) => a - b);
  const out: number[][] = [];
  for (const v of s) {
    const last = out[out.length - 1];
    if (last && v - last[last.length - 1]! <= tol) last.push(v);
    else out.push([v]);
  }
  return out.map((g) => g.reduce((a, b) => a + b, 0) / g.length);
}

/** Narrowest grid cell: closer grid lines are a double border or a frame's gutter, not a cell. */
const MIN_CELL = 7;

/** Drops grid lines closer than MIN_CELL to the previous one; the outermost line always stays. */
function spaced(sorted: number[]): number[] {
  const out: number[] = [];
  for (const v of sorted) {
    if (out.length === 0 || v - out[out.length - 1]! > MIN_CELL) out.push(v);
    else if (v === sorted[sorted.length - 1] && out.length > 1) out[out.length - 1] = v;
  }
  return out;
}

/** Length of [a0, a1] covered by the union of the given intervals. */
function covered(a0: number, a1: number, intervals: [number, number][]): number {
  const iv = intervals
    .map(([s, e]) => [Math.max(a0, s), Math.min(a1, e)] as [number, number])
    .filter(([s, e]) => e > s)
    .sort((p, q) => p[0] - q[0]);
  let total = 0;
  let end = a0;
  for (const [s, e] of iv) {
    if (e <= end) continue;
    total += e - Math.max(s, end);
    end = e;
  }
  return total;
}

/**
 * Row borders drawn only by the column rules: where every column rule of a frame stops and
 * starts again at one height (word processors draw each row's cell borders on their own), a row
 * ends there even when no horizontal rule is drawn (a shaded header row over the first body
 * row: the two were one cell holding both lines). Returns those borders as rules across the frame.
 */
function jointRules(v: VSeg[], h: HSeg[], x0: number, x1: number): HSeg[] {
  // Only where the column rules run on through row rules: a producer that breaks them at every
  // row rule and every text line (each line's cell borders drawn alone, spanned cells too) says
  // nothing by a break.
  const through = v.some((s) => h.some((r) => r.y > s.y0 + TOL && r.y < s.y1 - TOL && r.x0 <= s.x && r.x1 >= s.x));
  if (!through) return [];
  const byX = cluster(
    v.map((s) => s.x),
    TOL,
  ).map((x) => v.filter((s) => Math.abs(s.x - x) <= TOL));
  if (byX.length < 2) return [];
  const joints = (segs: VSeg[]) =>
    segs.flatMap((a) => segs.filter((b) => b !== a && Math.abs(b.y0 - a.y1) <= TOL).map((b) => (a.y1 + b.y0) / 2));
  const [first, ...rest] = byX.map(joints);
  return first!.filter((y) => rest.every((ys) => ys.some((z) => Math.abs(z - y) <= TOL))).map((y) => ({ y, x0, x1 }));
}

/** Grids of the ruled tables on a page. */
export function ruledGrids(rules: Rule[]): Grid[] {
  if (rules.length > MAX_RULES) return [];
  const { h, v } = split(rules);
  const grids: Grid[] = [];
  for (const f of frames(h, v)) {
    const x0 = Math.min(...f.h.map((s) => s.x0), ...f.v.map((s) => s.x));
    const x1 = Math.max(...f.h.map((s) => s.x1), ...f.v.map((s) => s.x));
    const y0 = Math.min(...f.v.map((s) => s.y0), ...f.h.map((s) => s.y));
    const y1 = Math.max(...f.v.map((s) => s.y1), ...f.h.map((s) => s.y));
    f.h.push(...jointRules(f.v, f.h, x0, x1));
    // The frame's outer edges bound the grid even where no rule is drawn (open-sided tables).
    const xs = spaced(cluster([x0, x1, ...f.v.map((s) => s.x)], TOL + 1));
    const ys = spaced(cluster([y0, y1, ...f.h.map((s) => s.y)], TOL + 1));
    if (xs.length < 3 || ys.length < 3) continue; // fewer than 2 × 2 cells: a box or a divider, not a table
    const vAt = (x: number) =>
      f.v.filter((s) => Math.abs(s.x - x) <= TOL + 1).map((s) => [s.y0, s.y1] as [number, number]);
    const hAt = (y: number) =>
      f.h.filter((s) => Math.abs(s.y - y) <= TOL + 1).map((s) => [s.x0, s.x1] as [number, number]);
    const vLines = xs.map(vAt);
    const hLines = ys.map(hAt);
    grids.push({
      xs,
      ys,
      // Merged when less than half of the shared edge is ruled.
      mergeRight: (r, c) => covered(ys[r]!, ys[r + 1]!, vLines[c + 1]!) < 0.5 * (ys[r + 1]! - ys[r]!),
      mergeDown: (r, c) => covered(xs[c]!, xs[c + 1]!, hLines[r + 1]!) < 0.5 * (xs[c + 1]! - xs[c]!),
    });
  }
  return grids;
}
