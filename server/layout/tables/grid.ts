/**
 * From a table grid (column and row boundaries in points, plus which neighbouring grid cells are
 * merged) and the page's text spans to OTSL rows. Shared by both table sources: ruling lines and
 * text alignment.
 */
import type { BBox } from '../../../common/protocol';
import type { OtslCell } from '../../model/items';
import type { TextSpan } from '../../model/content';

export interface Grid {
  /** Column boundaries, left to right (C + 1 values). */
  xs: number[];
  /** Row boundaries, top to bottom (R + 1 values). */
  ys: number[];
  /** True when grid cells (r, c) and (r, c + 1) form one cell (no rule between them). */
  mergeRight(r: number, c: number): boolean;
  /** True when grid cells (r, c) and (r + 1, c) form one cell. */
  mergeDown(r: number, c: number): boolean;
  /** The spans this grid may take (alignment tables: the runs that made it); default: any inside. */
  only?: Set<number>;
}

interface Region {
  r0: number;
  c0: number;
  r1: number;
  c1: number;
  words: { x: number; x0: number; x1: number; y: number; h: number; text: string }[];
}

/** Union of grid cells joined by merges, as rectangles; a non-rectangular group falls back to single cells. */
function regions(g: Grid): Region[][] {
  const R = g.ys.length - 1;
  const C = g.xs.length - 1;
  const parent = Array.from({ length: R * C }, (_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]!]!;
    return i;
  };
  const join = (a: number, b: number) => {
    parent[find(a)] = find(b);
  };
  for (let r = 0; r < R; r++)
    for (let c = 0; c < C; c++) {
      if (c + 1 < C && g.mergeRight(r, c)) join(r * C + c, r * C + c + 1);
      if (r + 1 < R && g.mergeDown(r, c)) join(r * C + c, (r + 1) * C + c);
    }
  const rects = new Map<number, Region>();
  for (let r = 0; r < R; r++)
    for (let c = 0; c < C; c++) {
      const k = find(r * C + c);
      const e = rects.get(k);
      if (!e) rects.set(k, { r0: r, c0: c, r1: r, c1: c, words: [] });
      else {
        e.r0 = Math.min(e.r0, r);
        e.c0 = Math.min(e.c0, c);
        e.r1 = Math.max(e.r1, r);
        e.c1 = Math.max(e.c1, c);
      }
    }
  const at: Region[][] = Array.from({ length: R }, () => new Array<Region>(C));
  for (const [k, reg] of rects) {
    const rectangular = (() => {
      for (let r = reg.r0; r <= reg.r1; r++)
        for (let c = reg.c0; c <= reg.c1; c++) if (find(r * C + c) !== k) return false;
      return true;
    })();
    if (rectangular) {
      for (let r = reg.r0; r <= reg.r1; r++) for (let c = reg.c0; c <= reg.c1; c++) at[r]![c] = reg;
    }
  }
  for (let r = 0; r < R; r++) for (let c = 0; c < C; c++) at[r]![c] ??= { r0: r, c0: c, r1: r, c1: c, words: [] };
  return at;
}

function locate(bounds: number[], v: number): number {
  for (let i = 0; i + 1 < bounds.length; i++) if (v < bounds[i + 1]!) return i;
  return bounds.length - 2;
}

/**
 * Pieces of a span with their estimated x centres: a span that runs over a column boundary (a
 * producer wrote two cells as one text run) is cut at spaces, each word placed by its share of
 * the span's width.
 */
function pieces(s: TextSpan, xs: number[]): { x: number; x0: number; x1: number; text: string }[] {
  const crosses = xs.slice(1, -1).some((x) => s.bbox.x0 < x - 2 && s.bbox.x1 > x + 2);
  if (!crosses) return [{ x: (s.bbox.x0 + s.bbox.x1) / 2, x0: s.bbox.x0, x1: s.bbox.x1, text: s.text }];
  const w = (s.bbox.x1 - s.bbox.x0) / Math.max(1, s.text.length);
  const out: { x: number; x0: number; x1: number; text: string }[] = [];
  const re = /\S+/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s.text))) {
    const x0 = s.bbox.x0 + m.index * w;
    out.push({ x: x0 + (m[0].length / 2) * w, x0, x1: x0 + m[0].length * w, text: m[0] });
  }
  return out;
}

function regionText(reg: Region): string {
  // Reading order inside a cell: lines top to bottom (a word joins a line when its centre is
  // within half a line height), then left to right.
  const ws = reg.words.slice().sort((a, b) => a.y - b.y);
  const lines: (typeof ws)[] = [];
  for (const w of ws) {
    const line = lines[lines.length - 1];
    if (line && Math.abs(line[0]!.y - w.y) < Math.max(2, line[0]!.h * 0.5)) line.push(w);
    else lines.push([w]);
  }
  // Runs of one line that touch (a "×" in a math font between two numbers: "1×32×100") join
  // without a space; a word space is a fifth of the type size or more.
  return lines
    .map((l) =>
      l
        .sort((a, b) => a.x - b.x)
        .map((w, k) => {
          const prev = l[k - 1];
          if (!prev) return w.text;
          const touch = w.x0 - prev.x1 < 0.12 * Math.min(w.h, prev.h) && !/\s$/.test(prev.text) && !/^\s/.test(w.text);
          return (touch ? '' : ' ') + w.text;
        })
        .join(''),
    )
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
}

export interface GridTable {
  rows: OtslCell[][];
  spanIndices: number[];
  bbox: BBox;
  /** Texts of the first row's spans are all bold. */
  firstRowBold: boolean;
  /** Number of rows the first row's cells reach down to (a multi-row header through row spans). */
  headerRows: number;
  nonEmptyCells: number;
}

/** Fills the grid with the spans whose centre lies inside it (those not already `taken`). */
export function fillGrid(g: Grid, spans: TextSpan[], taken: Set<number>): GridTable {
  const at = regions(g);
  const R = g.ys.length - 1;
  const C = g.xs.length - 1;
  const bbox: BBox = { x0: g.xs[0]!, y0: g.ys[0]!, x1: g.xs[C]!, y1: g.ys[R]! };
  const spanIndices: number[] = [];
  let firstRowSpans = 0;
  let firstRowBold = 0;
  spans.forEach((s, i) => {
    if (taken.has(i) || (g.only && !g.only.has(i))) return;
    let cx = (s.bbox.x0 + s.bbox.x1) / 2;
    const cy = (s.bbox.y0 + s.bbox.y1) / 2;
    // Text too wide for its cell runs out over the table's outer border ("Station" in a narrow
    // first column, set flush right by Writer); it still belongs to the edge cell it ends (or
    // starts) in.
    if (cx < bbox.x0 && s.bbox.x1 > bbox.x0 + 2 && s.bbox.x1 <= g.xs[1]! + 1) cx = (bbox.x0 + s.bbox.x1) / 2;
    else if (cx > bbox.x1 && s.bbox.x0 < bbox.x1 - 2 && s.bbox.x0 >= g.xs[C - 1]! - 1) cx = (s.bbox.x0 + bbox.x1) / 2;
    if (cx < bbox.x0 || cx > bbox.x1 || cy < bbox.y0 || cy > bbox.y1) return;
    spanIndices.push(i);
    const r = locate(g.ys, cy);
    for (const p of pieces(s, g.xs)) {
      const reg = at[r]![locate(g.xs, Math.min(Math.max(p.x, bbox.x0 + 0.1), bbox.x1 - 0.1))]!;
      reg.words.push({ x: p.x, x0: p.x0, x1: p.x1, y: cy, h: s.bbox.y1 - s.bbox.y0, text: p.text });
    }
    if (at[r]![0]!.r0 === 0) {
      firstRowSpans++;
      if (s.bold) firstRowBold++;
    }
  });
  let headerRows = 1;
  for (let c = 0; c < C; c++) if (at[0]![c]!.words.length > 0) headerRows = Math.max(headerRows, at[0]![c]!.r1 + 1);
  let nonEmpty = 0;
  const rows: OtslCell[][] = [];
  for (let r = 0; r < R; r++) {
    const row: OtslCell[] = [];
    for (let c = 0; c < C; c++) {
      const reg = at[r]![c]!;
      if (r === reg.r0 && c === reg.c0) {
        const text = regionText(reg);
        if (text) nonEmpty++;
        row.push(text ? { tag: 'fcel', text } : { tag: 'ecel', text: '' });
      } else if (r === reg.r0) row.push({ tag: 'lcel', text: '' });
      else if (c === reg.c0) row.push({ tag: 'ucel', text: '' });
      else row.push({ tag: 'xcel', text: '' });
    }
    rows.push(row);
  }
  return {
    rows,
    spanIndices,
    bbox,
    firstRowBold: firstRowSpans > 0 && firstRowBold === firstRowSpans,
    headerRows,
    nonEmptyCells: nonEmpty,
  };
}

/** Marks the first `n` rows' content cells as column headers (`ched`). */
export function markHeader(rows: OtslCell[][], n: number): void {
  for (let r = 0; r < Math.min(n, rows.length); r++)
    for (const cell of rows[r]!) if (cell.tag === 'fcel') cell.tag = 'ched';
}

/**
 * Drops rows and columns made only of empty cells (the sliver between a double rule, a spacer
 * column). Only all-`ecel` lines are dropped, so no merge is cut in two.
 */
export function pruneEmpty(rows: OtslCell[][]): OtslCell[][] {
  // An empty cell that starts a merged region (its neighbour continues it) must stay.
  const continues = (c: OtslCell | undefined, tags: string[]) => c !== undefined && tags.includes(c.tag);
  const kept = rows.filter((r, ri) =>
    r.some((c, ci) => c.tag !== 'ecel' || continues(rows[ri + 1]?.[ci], ['ucel', 'xcel'])),
  );
  if (kept.length === 0) return kept;
  const C = kept[0]!.length;
  const keepCol = Array.from({ length: C }, (_, c) =>
    kept.some((r) => r[c]!.tag !== 'ecel' || continues(r[c + 1], ['lcel', 'xcel'])),
  );
  return kept.map((r) => r.filter((_, c) => keepCol[c]));
}
