/**
 * Ruled tables whose frame leaves rows out: statements and reports often rule only the columns
 * and a few section rows (a shaded "A) VALORE DELLA PRODUZIONE" bar), so one grid row holds
 * dozens of text lines, and each column's numbers would collapse into one cell. Such a band is
 * cut at its text lines when the lines line up across columns as rows do: two or more lines with
 * text in two or more columns, and a column of numbers one per line. A cell whose text merely
 * wraps (one column with several lines beside one-line cells) is left whole.
 *
 * Also the reverse: a merged cell over several columns (the header row of a statement drawn with
 * no rules between the years) is split back when each column it covers holds its own text,
 * centred in that column: "2015 2016 2017 2018" over four year columns. A spanning heading
 * ("Year Ended" over two columns) sits across the boundary and stays one cell.
 */
import type { TextSpan } from '../../model/content';
import type { Grid } from './grid';

const NUMBER_RE = /^\s*[-+−–(]?[$€£]?\s*\d[\d.,\s]*%?\)?\s*$/;

interface Placed {
  cx: number;
  cy: number;
  h: number;
  x0: number;
  x1: number;
  text: string;
}

function locate(bounds: number[], v: number): number {
  for (let i = 0; i + 1 < bounds.length; i++) if (v < bounds[i + 1]!) return i;
  return bounds.length - 2;
}

/** The grid's spans (not taken, centre inside), by row band. */
function placed(g: Grid, spans: TextSpan[], taken: Set<number>): Placed[][] {
  const R = g.ys.length - 1;
  const C = g.xs.length - 1;
  const out: Placed[][] = Array.from({ length: R }, () => []);
  spans.forEach((s, i) => {
    if (taken.has(i) || (g.only && !g.only.has(i)) || s.text.trim() === '') return;
    const cx = (s.bbox.x0 + s.bbox.x1) / 2;
    const cy = (s.bbox.y0 + s.bbox.y1) / 2;
    if (cx < g.xs[0]! || cx > g.xs[C]! || cy < g.ys[0]! || cy > g.ys[R]!) return;
    out[locate(g.ys, cy)]!.push({ cx, cy, h: s.bbox.y1 - s.bbox.y0, x0: s.bbox.x0, x1: s.bbox.x1, text: s.text });
  });
  return out;
}

/** Text lines of a band: spans whose centres lie within `tol` line heights, top to bottom. */
function textLines(ps: Placed[], tol = 0.5): Placed[][] {
  const sorted = ps.slice().sort((a, b) => a.cy - b.cy);
  const lines: Placed[][] = [];
  for (const p of sorted) {
    const line = lines[lines.length - 1];
    if (line && Math.abs(line[0]!.cy - p.cy) < Math.max(1.5, tol * Math.min(line[0]!.h, p.h))) line.push(p);
    else lines.push([p]);
  }
  return lines;
}

interface BandCut {
  /** Row boundaries inside the band. */
  ys: number[];
  /** Per boundary: the columns whose cell runs over it (text centred between two lines). */
  spanning: Set<number>[];
}

/** Row boundaries inside band r, or none when the band is one row. */
function cuts(g: Grid, r: number, ps: Placed[]): BandCut {
  const none = { ys: [], spanning: [] };
  const C = g.xs.length - 1;
  const R = g.ys.length - 1;
  for (let c = 0; c < C; c++) {
    if (c + 1 < C && g.mergeRight(r, c)) return none;
    if (r > 0 && g.mergeDown(r - 1, c)) return none;
    if (r + 1 < R && g.mergeDown(r, c)) return none;
  }
  const col = (p: Placed) => locate(g.xs, p.cx);
  const all = textLines(ps, 0.3);
  // A line whose columns hold nothing else in the band, between two other lines, is a cell
  // centred on the rows beside it ("6" over the OTSL and HTML rows): it spans them.
  const used = new Map<number, number>();
  all.forEach((l) => new Set(l.map(col)).forEach((c) => used.set(c, (used.get(c) ?? 0) + 1)));
  const centred = all.map((l, k) => k > 0 && k + 1 < all.length && l.every((p) => used.get(col(p)) === 1));
  const lines = all.filter((_, k) => !centred[k]);
  if (lines.length < 2) return none;
  const colsOf = (l: Placed[]) => new Set(l.map(col));
  const multi = lines.filter((l) => colsOf(l).size >= 2).length;
  if (multi < 2) return none;
  // A column holding a number on each of two or more lines: figures, one per row.
  let numericCol = false;
  for (let c = 0; c < C && !numericCol; c++) {
    const cells = lines.map((l) => l.filter((p) => col(p) === c)).filter((x) => x.length > 0);
    if (cells.length >= 2 && cells.every((x) => NUMBER_RE.test(x.map((p) => p.text).join(' ')))) numericCol = true;
  }
  if (!numericCol) return none;
  const ys: number[] = [];
  for (let k = 1; k < lines.length; k++) {
    const above = Math.max(...lines[k - 1]!.map((p) => p.cy + p.h / 2));
    const below = Math.min(...lines[k]!.map((p) => p.cy - p.h / 2));
    ys.push((above + below) / 2);
  }
  const spanning = ys.map(() => new Set<number>());
  all.forEach((l, k) => {
    if (!centred[k]) return;
    const cy = l[0]!.cy;
    // The boundary nearest the centred text is the one it sits on.
    let best = 0;
    ys.forEach((y, b) => {
      if (Math.abs(y - cy) < Math.abs(ys[best]! - cy)) best = b;
    });
    for (const p of l) spanning[best]!.add(col(p));
  });
  return { ys, spanning };
}

/** True when a merged run of columns c0..c1 in band r holds text centred in each of its columns. */
function ownColumns(g: Grid, c0: number, c1: number, ps: Placed[]): boolean {
  for (let c = c0; c <= c1; c++) {
    const inCol = ps.filter((p) => p.x0 >= g.xs[c]! - 1 && p.x1 <= g.xs[c + 1]! + 1);
    if (inCol.length === 0) return false;
    const mid = (Math.min(...inCol.map((p) => p.x0)) + Math.max(...inCol.map((p) => p.x1))) / 2;
    const w = g.xs[c + 1]! - g.xs[c]!;
    if (Math.abs(mid - (g.xs[c]! + g.xs[c + 1]!) / 2) > 0.2 * w) return false;
  }
  // Every span of the run lies in one column (none crosses a boundary).
  return ps.every((p) => {
    const c = locate(g.xs, p.cx);
    return c < c0 || c > c1 || (p.x0 >= g.xs[c]! - 1 && p.x1 <= g.xs[c + 1]! + 1);
  });
}

/** The grid with its many-line bands cut into rows and wrongly merged header cells split. */
export function refineRuledGrid(g: Grid, spans: TextSpan[], taken: Set<number>): Grid {
  const R = g.ys.length - 1;
  const C = g.xs.length - 1;
  const byBand = placed(g, spans, taken);
  // Horizontal merges to undo: (band, column) pairs whose mergeRight no longer holds.
  const unmerge = new Set<string>();
  for (let r = 0; r < R; r++) {
    let c = 0;
    while (c < C) {
      let e = c;
      while (e + 1 < C && g.mergeRight(r, e)) e++;
      if (e > c) {
        const vertical = (rr: number) =>
          rr >= 0 && rr < R - 1 && [...Array(e - c + 1).keys()].some((k) => g.mergeDown(rr, c + k));
        const inRun = byBand[r]!.filter((p) => p.cx >= g.xs[c]! && p.cx <= g.xs[e + 1]!);
        if (!vertical(r - 1) && !vertical(r) && textLines(inRun).length === 1 && ownColumns(g, c, e, inRun))
          for (let k = c; k < e; k++) unmerge.add(`${r},${k}`);
      }
      c = e + 1;
    }
  }
  const mergeRight0 = (r: number, c: number) => !unmerge.has(`${r},${c}`) && g.mergeRight(r, c);
  const ys: number[] = [g.ys[0]!];
  const band: number[] = [];
  const lastOfBand: boolean[] = [];
  // Per new row that is not its band's last: the columns whose cell continues into the next row.
  const spanDown: Set<number>[] = [];
  const grid0: Grid = { ...g, mergeRight: mergeRight0 };
  for (let r = 0; r < R; r++) {
    const inner = cuts(grid0, r, byBand[r]!);
    inner.ys.forEach((y, k) => {
      ys.push(y);
      band.push(r);
      lastOfBand.push(false);
      spanDown.push(inner.spanning[k]!);
    });
    ys.push(g.ys[r + 1]!);
    band.push(r);
    lastOfBand.push(true);
    spanDown.push(new Set());
  }
  if (unmerge.size === 0 && ys.length === g.ys.length) return g;
  return {
    ...g,
    ys,
    mergeRight: (r, c) => mergeRight0(band[r]!, c),
    // Rows cut from one band are separate rows; a band's last row keeps the band's merges.
    mergeDown: (r, c) => (lastOfBand[r]! ? g.mergeDown(band[r]!, c) : spanDown[r]!.has(c)),
  };
}
