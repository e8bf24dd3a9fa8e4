/**
 * Reading order by recursive XY-cut. At each node a vertical cut (a whitespace gutter between
 * two side-by-side groups) is preferred; otherwise the node is cut at its widest horizontal gap,
 * so full-width headings and figures that interrupt columns split the page into bands first.
 * Each unit gets the path of cuts that led to it: lines with different paths are in different
 * columns and never merge into one block.
 */
import type { BBox } from '../../../common/protocol';

export interface Unit {
  bbox: BBox;
  /** Box used for cutting: lines use a band around their middle, since ascenders overlap. */
  cutBox: BBox;
  /** Words in a text line (undefined for pictures, tables, formulas). */
  words?: number;
}

export interface Ordered<U extends Unit> {
  unit: U;
  /** Cut path; equal paths share a column. */
  column: string;
}

export interface CutOptions {
  /** Minimum gutter width for a vertical cut, points. */
  minGutter: number;
  /** Right-to-left pages read columns from the right. */
  rtl: boolean;
  /** Narrowest side a column cut may leave, points (indented list levels are not columns). */
  minColumnWidth: number;
  /**
   * Column gutters found over the whole page (lines/index.ts `findGutters`): x-ranges that many lines
   * end before and start after. A cut along one is trusted even beside a short column, and
   * units that cross one (a title, a wide figure) split the page into bands.
   */
  gutters?: { x0: number; x1: number }[];
  /**
   * Blocks of text set in columns that table detection turned down (tables/notTable.ts: stat
   * blocks, newspaper columns, a numbered list flowed into columns), with their gutters. A node
   * inside one is cut along its gutters even where its lines share baselines like a table's rows.
   */
  textColumns?: { bbox: BBox; gutters: { x0: number; x1: number }[] }[];
}

export function xyCut<U extends Unit>(units: U[], opts: CutOptions): Ordered<U>[] {
  const out: Ordered<U>[] = [];
  cut(units, '', opts, out, 0);
  return out;
}

function cut<U extends Unit>(units: U[], path: string, opts: CutOptions, out: Ordered<U>[], depth: number): void {
  if (units.length === 0) return;
  if (units.length === 1 || depth > 400) {
    leaf(units, path, opts, out);
    return;
  }
  const v = verticalCut(units, opts.minGutter, opts.minColumnWidth, opts.gutters ?? [], columnGutters(units, opts));
  if (v) {
    const parts = opts.rtl ? [v[1], v[0]] : v;
    cut(parts[0], path + 'a', opts, out, depth + 1);
    cut(parts[1], path + 'b', opts, out, depth + 1);
    return;
  }
  // Full-width units across a page gutter (title block, wide figure or table, a heading set
  // across the columns) cut the node into bands above and below them: not the widest gap, which
  // may be a gap in one column that happens to line up with one in the other.
  const bands = bandCut(units, opts.gutters ?? []);
  if (bands) {
    bands.forEach((b, k) => cut(b, bands.length > 1 ? `${path}${k}.` : path, opts, out, depth + 1));
    return;
  }
  const h = horizontalCut(units);
  if (h) {
    // Horizontal cuts keep the column path: stacked lines of one column may still form one block.
    cut(h[0], path, opts, out, depth + 1);
    cut(h[1], path, opts, out, depth + 1);
    return;
  }
  leaf(units, path, opts, out);
}

function leaf<U extends Unit>(units: U[], path: string, opts: CutOptions, out: Ordered<U>[]): void {
  const sorted = [...units].sort((a, b) => {
    const ca = (a.cutBox.y0 + a.cutBox.y1) / 2;
    const cb = (b.cutBox.y0 + b.cutBox.y1) / 2;
    const overlap = Math.min(a.cutBox.y1, b.cutBox.y1) - Math.max(a.cutBox.y0, b.cutBox.y0);
    if (overlap > 0) return opts.rtl ? b.bbox.x1 - a.bbox.x1 : a.bbox.x0 - b.bbox.x0;
    return ca - cb;
  });
  for (const u of sorted) out.push({ unit: u, column: path });
}

/**
 * Bands split by units that cross a page gutter, when the gutter has columns on both sides
 * elsewhere in the node. Units are taken top to bottom by their middles; each run of crossing
 * units is a band of its own.
 */
function bandCut<U extends Unit>(units: U[], gutters: { x0: number; x1: number }[]): U[][] | undefined {
  for (const g of gutters) {
    const crosses = (u: U) => u.cutBox.x0 < g.x0 - 0.5 && u.cutBox.x1 > g.x1 + 0.5;
    const left = units.filter((u) => u.cutBox.x1 <= g.x0 + 1).length;
    const right = units.filter((u) => u.cutBox.x0 >= g.x1 - 1).length;
    const across = units.filter(crosses);
    if (across.length === 0 || left < 2 || right < 2) continue;
    const sorted = [...units].sort((a, b) => a.cutBox.y0 + a.cutBox.y1 - b.cutBox.y0 - b.cutBox.y1);
    const bands: U[][] = [];
    let cur: U[] = [];
    let curAcross: boolean | undefined;
    for (const u of sorted) {
      const c = crosses(u) || (curAcross === true && centredTail(u, cur[cur.length - 1]!));
      if (curAcross !== undefined && c !== curAcross && cur.length) {
        bands.push(cur);
        cur = [];
      }
      curAcross = c;
      cur.push(u);
    }
    if (cur.length) bands.push(cur);
    if (bands.length > 1) return bands;
  }
  return undefined;
}

/**
 * The short last line of a title set across the columns, centred under the line before it in the
 * same size: part of the title's band, not the first line of the column under it (papertex's
 * boxed "… embed a related text / inside a piece of news.").
 */
function centredTail(u: Unit, last: Unit): boolean {
  const h = last.bbox.y1 - last.bbox.y0;
  const mid = (b: BBox) => (b.x0 + b.x1) / 2;
  const gap = u.bbox.y0 - last.bbox.y1;
  return (
    Math.abs(mid(u.bbox) - mid(last.bbox)) <= Math.max(2, TAIL_CENTRE_SHARE * (last.bbox.x1 - last.bbox.x0)) &&
    Math.abs(u.bbox.y1 - u.bbox.y0 - h) <= TAIL_HEIGHT_SHARE * h &&
    gap >= -1 &&
    gap <= TAIL_MAX_GAP * h
  );
}

/** A title's last line is centred within this share of the line above's width… */
const TAIL_CENTRE_SHARE = 0.03;
/** …as tall as it within this share… */
const TAIL_HEIGHT_SHARE = 0.15;
/** …and at most this many of its heights under it. */
const TAIL_MAX_GAP = 0.8;

/** The gutters of the text-columns block that holds all of the node's units, if any. */
function columnGutters<U extends Unit>(units: U[], opts: CutOptions): { x0: number; x1: number }[] {
  const tol = 2;
  const block = (opts.textColumns ?? []).find((c) =>
    units.every(
      (u) =>
        u.cutBox.x0 >= c.bbox.x0 - tol &&
        u.cutBox.x1 <= c.bbox.x1 + tol &&
        u.cutBox.y0 >= c.bbox.y0 - tol &&
        u.cutBox.y1 <= c.bbox.y1 + tol,
    ),
  );
  return block?.gutters ?? [];
}

/** The widest gutter that separates two groups standing side by side (their y-ranges overlap). */
function verticalCut<U extends Unit>(
  units: U[],
  minGutter: number,
  minWidth: number,
  gutters: { x0: number; x1: number }[],
  textGutters: { x0: number; x1: number }[] = [],
): [U[], U[]] | undefined {
  const sorted = [...units].sort((a, b) => a.cutBox.x0 - b.cutBox.x0);
  let maxX1 = -Infinity;
  let best: { i: number; gap: number } | undefined;
  // Prefix y-ranges of the left groups, suffix of the right ones.
  const n = sorted.length;
  const sufY0 = new Array<number>(n + 1).fill(Infinity);
  const sufY1 = new Array<number>(n + 1).fill(-Infinity);
  for (let i = n - 1; i >= 0; i--) {
    sufY0[i] = Math.min(sufY0[i + 1], sorted[i].cutBox.y0);
    sufY1[i] = Math.max(sufY1[i + 1], sorted[i].cutBox.y1);
  }
  const sufX0 = new Array<number>(n + 1).fill(Infinity);
  for (let i = n - 1; i >= 0; i--) sufX0[i] = Math.min(sufX0[i + 1], sorted[i].cutBox.x0);
  const maxRight = Math.max(...sorted.map((u) => u.cutBox.x1));
  let preY0 = Infinity;
  let preY1 = -Infinity;
  const nodeH = Math.max(1, sufY1[0] - sufY0[0]);
  for (let i = 0; i < n; i++) {
    const u = sorted[i];
    if (i > 0) {
      const gap = u.cutBox.x0 - maxX1;
      if (gap >= minGutter) {
        const overlap = Math.min(preY1, sufY1[i]) - Math.max(preY0, sufY0[i]);
        // A gutter must be tall: a short group beside a long one (a two-cell table row next to
        // a paragraph column) is better split by a horizontal cut first.
        const shorter = Math.min(preY1 - preY0, sufY1[i] - sufY0[i]);
        const wide = maxX1 - sorted[0].cutBox.x0 >= minWidth && maxRight - sufX0[i] >= minWidth;
        // Along a page gutter a short column beside a long one is still a column (the last page
        // of a two-column paper, columns of unequal length).
        // OCR'd line boxes reach a point or two into the gutter: the gap need only cover most of it.
        const pageGutter = gutters.some((g) => gapCoversGutter(maxX1, u.cutBox.x0, g));
        // Lines of prose on both sides of a page gutter are columns even when they share a
        // baseline grid (three columns: one column beside two looks row-aligned).
        const prose = pageGutter && proseLines(sorted.slice(0, i)) && proseLines(sorted.slice(i));
        // A gutter of text set in columns (table detection said so from what the lines say).
        const textGutter = textGutters.some((g) => gapCoversGutter(maxX1, u.cutBox.x0, g));
        if (overlap > 0 && textGutter && (!best || gap > best.gap)) best = { i, gap };
        else if (
          overlap > 0 &&
          wide &&
          (shorter >= nodeH * 0.3 || pageGutter) &&
          (!best || gap > best.gap) &&
          (prose || !rowAligned(sorted.slice(0, i), sorted.slice(i)))
        )
          best = { i, gap };
      }
    }
    maxX1 = Math.max(maxX1, u.cutBox.x1);
    preY0 = Math.min(preY0, u.cutBox.y0);
    preY1 = Math.max(preY1, u.cutBox.y1);
  }
  if (!best) return undefined;
  return [sorted.slice(0, best.i), sorted.slice(best.i)];
}

/** Most units are text lines of several words (prose), not table cells. */
function proseLines<U extends Unit>(us: U[]): boolean {
  const words = us.map((u) => u.words ?? 0).sort((a, b) => a - b);
  return us.length >= 3 && words[Math.floor(words.length / 2)]! >= 3;
}

/**
 * Two groups whose short units pair up row by row are table columns (or label/value pairs), read
 * row by row, not column by column. Text columns have wide lines, so they never qualify.
 */
function rowAligned<U extends Unit>(left: U[], right: U[]): boolean {
  if (left.length < 2 || right.length < 2) return false;
  const width = (us: U[]) => Math.max(...us.map((u) => u.cutBox.x1)) - Math.min(...us.map((u) => u.cutBox.x0));
  const total =
    Math.max(...[...left, ...right].map((u) => u.cutBox.x1)) - Math.min(...[...left, ...right].map((u) => u.cutBox.x0));
  const narrowest = Math.min(width(left), width(right));
  if (narrowest > total * 0.42) return false;
  const [few, many] = left.length <= right.length ? [left, right] : [right, left];
  let paired = 0;
  // How far each paired unit's middle is off its mate's, as a share of its height.
  const offsets: number[] = [];
  for (const u of few) {
    const cy = (u.cutBox.y0 + u.cutBox.y1) / 2;
    const h = u.cutBox.y1 - u.cutBox.y0;
    let best = Infinity;
    for (const v of many) best = Math.min(best, Math.abs((v.cutBox.y0 + v.cutBox.y1) / 2 - cy));
    if (best < Math.max(2, h)) {
      paired++;
      offsets.push(best / Math.max(1, u.bbox.y1 - u.bbox.y0));
    }
  }
  if (paired < few.length * 0.7 || few.length < many.length * 0.5) return false;
  // A table's cells share their rows; two blocks side by side on baseline grids half a line
  // apart (a letter's sender and recipient addresses) pair up only within the tolerance.
  offsets.sort((a, b) => a - b);
  return offsets[Math.floor(offsets.length / 2)]! <= ROW_OFFSET_MAX;
}

/** Paired units of table columns are off each other's row by at most this share of a line's height (median). */
const ROW_OFFSET_MAX = 0.3;

/** Cut at the widest horizontal whitespace band. */
function horizontalCut<U extends Unit>(units: U[]): [U[], U[]] | undefined {
  const sorted = [...units].sort((a, b) => a.cutBox.y0 - b.cutBox.y0);
  let maxY1 = -Infinity;
  let best: { i: number; gap: number } | undefined;
  for (let i = 0; i < sorted.length; i++) {
    const u = sorted[i];
    if (i > 0) {
      const gap = u.cutBox.y0 - maxY1;
      if (gap > 0 && (!best || gap > best.gap)) best = { i, gap };
    }
    maxY1 = Math.max(maxY1, u.cutBox.y1);
  }
  if (!best) return undefined;
  return [sorted.slice(0, best.i), sorted.slice(best.i)];
}

/** The white gap from x1 (end of the left side) to x0 (start of the right) covers most of gutter g. */
export function gapCoversGutter(x1: number, x0: number, g: { x0: number; x1: number }): boolean {
  return Math.min(g.x1, x0) - Math.max(g.x0, x1) >= 0.5 * (g.x1 - g.x0);
}
