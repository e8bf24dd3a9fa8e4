/**
 * Tables without ruling lines, found from text alignment: at least 3 consecutive lines whose text
 * pieces leave at least 2 vertical white gaps that run through all of them. Conservative on
 * purpose: a false table scrambles a paragraph, a missed table only loses its grid.
 *
 * What keeps prose out: each line must itself be split into ≥ 2 pieces by wide gaps (a wrapped
 * paragraph line is one piece), pieces must be short (cells, not layout columns), and two-column
 * page layouts give only one gap.
 */
import type { TextSpan } from '../../model/content';
import type { Grid } from './grid';
import { columnMajorListGutters, textColumnGutters, type TextColumns } from './notTable';
import { splitAtColumnGaps } from './narrowCols';
import { findGutters } from '../lines/index';

import type { Piece, RunLine } from './runLine';

interface Line extends RunLine {
  /** Prose runs of the line (x extents). */
  prose: [number, number][];
  /** All word runs of the line, prose or not (x extents). */
  runs: [number, number][];
}

/**
 * Gap (in font sizes) between two text runs of one line that may separate table cells. Small:
 * HTML tables rendered by browsers pad cells by ~4 pt. What keeps prose out is the consistency
 * tests below, not this number.
 */
const CELL_GAP_EM = 0.3;
/** Gap that certainly separates two runs of words (wider than any justified word space). */
const PROSE_GAP_EM = 1.2;
/** A run wider than a third of the page is prose with more words than this (narrowCols.ts). */
const PROSE_WORDS = 4;
const MIN_LINES = 3;
const MIN_GAPS = 2;

const MARKER_RE = /^\s*([•◦▪‣○●■□►➢✓–—-]|\(?\d{1,3}[.)]|\(?[a-z][.)])(\s|$)/;
const NUMBER_RE = /^\s*[-+−(]?\d[\d.,]*%?\)?\s*$/;

function alnum(text: string): number {
  return (text.match(/[\p{L}\p{N}]/gu) ?? []).length;
}

/** `keepProse`: every run may be a cell (a forced grid); `pageGaps`: x positions no run spans. */
interface LineOptions {
  keepProse?: boolean;
  pageGaps?: number[];
}

function lines(spans: TextSpan[], taken: Set<number>, pageWidth: number, opts: LineOptions = {}): Line[] {
  const { keepProse = false, pageGaps = [] } = opts;
  const idx = spans
    .map((s, i) => i)
    .filter((i) => !taken.has(i) && (spans[i]!.dir ?? 'ltr') !== 'ttb' && spans[i]!.text.trim() !== '')
    .sort((a, b) => spans[a]!.bbox.y0 + spans[a]!.bbox.y1 - (spans[b]!.bbox.y0 + spans[b]!.bbox.y1));
  const out: { y0: number; y1: number; size: number; members: number[] }[] = [];
  for (const i of idx) {
    const b = spans[i]!.bbox;
    const cy = (b.y0 + b.y1) / 2;
    // Join the line whose vertical extent holds this span's centre (tables often mix sizes a little).
    const line = out.find((l) => cy > l.y0 && cy < l.y1 && Math.abs((l.y0 + l.y1) / 2 - cy) < (l.y1 - l.y0) * 0.5);
    if (line) {
      line.members.push(i);
      line.y0 = Math.min(line.y0, b.y0);
      line.y1 = Math.max(line.y1, b.y1);
    } else out.push({ y0: b.y0, y1: b.y1, size: spans[i]!.fontSize, members: [i] });
  }
  out.sort((a, b) => a.y0 - b.y0);
  return out
    .map((l) => {
      const ms = l.members.slice().sort((a, b) => spans[a]!.bbox.x0 - spans[b]!.bbox.x0);
      // Prose runs (a line of a text column beside a table, a wrapped paragraph) are never cells:
      // found with a word-space-tolerant gap (justified text spreads words by up to ~1 em) and
      // left out, so they cannot stretch a table over the text next to it.
      const prose = new Set<number>();
      const proseRuns: [number, number][] = [];
      const coarse = group(spans, ms, PROSE_GAP_EM, pageGaps);
      // A wide run is prose when it holds a sentence's words: a header line of a typed table
      // ("Marks checked Destroyed Damaged", one space between cells) is as wide with four.
      const words = (run: Piece) =>
        run.spans
          .map((i) => spans[i]!.text.trim())
          .join(' ')
          .split(/\s+/).length;
      const isProse = coarse.map(
        (run) => !keepProse && (run.chars > 45 || (run.x1 - run.x0 > 0.33 * pageWidth && words(run) > PROSE_WORDS)),
      );
      // A run of another size touching a prose run is that sentence going on (the raised "A" of
      // "LaTeX", a word in a code font), not a cell: it joins the prose run beside it.
      for (let changed = !keepProse; changed;) {
        changed = false;
        for (let k = 0; k < coarse.length; k++) {
          if (isProse[k]) continue;
          const near = (j: number) => {
            if (!isProse[j]) return false;
            const gap = j < k ? coarse[k]!.x0 - coarse[j]!.x1 : coarse[j]!.x0 - coarse[k]!.x1;
            return gap < PROSE_GAP_EM * l.size;
          };
          if ((k > 0 && near(k - 1)) || (k + 1 < coarse.length && near(k + 1))) isProse[k] = changed = true;
        }
      }
      for (const [k, run] of coarse.entries()) {
        if (!isProse[k]) continue;
        for (const i of run.spans) prose.add(i);
        const last = proseRuns[proseRuns.length - 1];
        const apart = last !== undefined && pageGaps.some((x) => x >= last[1] && x <= run.x0);
        if (last && k > 0 && isProse[k - 1] && !apart) last[1] = run.x1;
        else proseRuns.push([run.x0, run.x1]);
      }
      const cells = group(
        spans,
        ms.filter((i) => !prose.has(i)),
        CELL_GAP_EM,
      );
      return {
        y0: l.y0,
        y1: l.y1,
        size: l.size,
        pieces: cells,
        prose: proseRuns,
        runs: coarse.map((r) => [r.x0, r.x1] as [number, number]),
      };
    })
    .map((l, k, all) => {
      // A short run right under or over a prose run it overlaps is that paragraph's first or
      // last line ("cache." ending a paragraph beside a table), not a cell.
      const near = all.filter(
        (o, j) => Math.abs(j - k) === 1 && Math.abs((o.y0 + o.y1) / 2 - (l.y0 + l.y1) / 2) < 1.6 * (l.y1 - l.y0),
      );
      const underProse = (p: { x0: number; x1: number }) =>
        near.some((o) => o.prose.some(([a, b]) => p.x0 < b && p.x1 > a));
      // Three runs of words or more (apart by more than a word space) under the paragraph are a
      // table's last row set close above it ("Riverside 19 2 0" over "Running costs for the
      // quarter"), not a line of it ("listed below by route." is one run).
      if (l.runs.filter(([x0, x1]) => underProse({ x0, x1 })).length >= 3) return l;
      const pieces = l.pieces.filter((p) => !underProse(p));
      return { ...l, pieces };
    });
}

/**
 * Runs of a line's spans (sorted by x) separated by gaps of at least `em` font sizes, and at any
 * of the x positions `breaks` that falls between two spans.
 */
function group(spans: TextSpan[], sorted: number[], em: number, breaks: number[] = []): Piece[] {
  const pieces: Piece[] = [];
  for (const i of sorted) {
    const s = spans[i]!;
    const last = pieces[pieces.length - 1];
    const lastSize = last ? spans[last.spans[last.spans.length - 1]!]!.fontSize : 0;
    // Text of another size is another run (a table's small type beside body text).
    const sameSize = last !== undefined && Math.abs(lastSize - s.fontSize) <= 0.15 * Math.max(lastSize, s.fontSize);
    const broken = last !== undefined && breaks.some((x) => x >= last.x1 && x <= s.bbox.x0);
    if (last && sameSize && !broken && s.bbox.x0 - last.x1 < em * Math.max(Math.min(s.fontSize, lastSize), 4)) {
      last.x1 = Math.max(last.x1, s.bbox.x1);
      last.spans.push(i);
      last.chars += s.text.length + 1;
      last.alnum += alnum(s.text);
      last.numeric = last.numeric && NUMBER_RE.test(s.text);
    } else
      pieces.push({
        x0: s.bbox.x0,
        x1: s.bbox.x1,
        spans: [i],
        chars: s.text.length,
        alnum: alnum(s.text),
        numeric: NUMBER_RE.test(s.text),
        marker: MARKER_RE.test(s.text),
      });
  }
  return pieces;
}

/** White vertical gaps (wider than `minGap`) through all the given lines, between their extremes. */
function gaps(ls: Line[], minGap: number): [number, number][] {
  const iv = ls.flatMap((l) => l.pieces.map((p) => [p.x0, p.x1] as [number, number])).sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  let end = iv[0]![1];
  for (const [s, e] of iv.slice(1)) {
    if (s - end >= minGap) out.push([end, s]);
    end = Math.max(end, e);
  }
  return out;
}

function isTableLike(ls: Line[]): boolean {
  // Cheapest test first: enough lines with two runs or more.
  if (ls.filter((l) => l.pieces.length >= 2).length < Math.max(MIN_LINES, ls.length * 0.7)) return false;
  const size = ls.reduce((a, l) => a + l.size, 0) / ls.length;
  const g = gaps(ls, CELL_GAP_EM * size);
  if (g.length < MIN_GAPS) return false;
  const pieces = ls.flatMap((l) => l.pieces);
  // Cells are short: long pieces are prose columns.
  const longPieces = pieces.filter((p) => p.chars > 40).length;
  if (longPieces > pieces.length * 0.2) return false;
  // One run per cell: prose split into words has many runs between two gaps.
  const cols = g.length + 1;
  const bounds = [-Infinity, ...g.map(([a, b]) => (a + b) / 2), Infinity];
  let cells = 0;
  for (const l of ls) {
    const per = new Map<number, number>();
    for (const p of l.pieces) {
      const c = bounds.findIndex((b, k) => k > 0 && (p.x0 + p.x1) / 2 < b) - 1;
      per.set(c, (per.get(c) ?? 0) + 1);
    }
    cells += per.size;
  }
  if (pieces.length > cells * 1.25) return false;
  // Lists side by side (slides, multi-column lists): columns whose cells start with bullets or
  // enumerators are list items, not cells.
  const perCol = new Map<number, { n: number; marked: number }>();
  for (const l of ls)
    for (const p of l.pieces) {
      const c = bounds.findIndex((b, k) => k > 0 && (p.x0 + p.x1) / 2 < b) - 1;
      const e = perCol.get(c) ?? { n: 0, marked: 0 };
      e.n++;
      if (p.marker) e.marked++;
      perCol.set(c, e);
    }
  for (const e of perCol.values()) if (e.n >= 2 && e.marked >= e.n * 0.5) return false;
  // Cells hold words or numbers; scattered symbols are a formula's pieces.
  const wordy = pieces.filter((p) => p.alnum >= 2 || p.numeric).length;
  if (wordy < pieces.length * 0.6) return false;
  // Most lines fill at least half the columns.
  const full = ls.filter((l) => l.pieces.length >= Math.max(2, Math.ceil(cols / 2))).length;
  return full >= Math.max(MIN_LINES, ls.length * 0.7);
}

/**
 * Layout gutters: x positions no prose run crosses, with at least 3 prose runs entirely on each
 * side (a two-column page), and the page's column gaps on an OCR'd page (see below). A table never
 * spans one, so each side is searched on its own.
 */
function gutters(ls: Line[], pageGaps: number[]): number[] {
  const runs = ls.flatMap((l) => l.prose);
  if (runs.length < 6) return [];
  const xs = [...new Set(runs.flatMap(([a, b]) => [a, b]))].sort((a, b) => a - b);
  const out: number[] = [];
  for (let k = 0; k + 1 < xs.length; k++) {
    const x = (xs[k]! + xs[k + 1]!) / 2;
    if (xs[k + 1]! - xs[k]! < 4 || runs.some(([a, b]) => a < x && b > x)) continue;
    const left = runs.filter(([, b]) => b <= x).length;
    const right = runs.filter(([a]) => a >= x).length;
    if (left >= 3 && right >= 3 && !out.some((g) => Math.abs(g - x) < 20)) out.push(x);
  }
  // A white column gap of an OCR'd page (`pageGaps`) is a gutter too where the columns' prose
  // beside it outnumbers three times the prose crossing it: a title and an author line centred
  // over both columns cross the gutter of the columns under them. A gap inside a full-width
  // table has cells beside it, not prose, and the paragraphs around cross it.
  for (const x of pageGaps) {
    const left = runs.filter(([, b]) => b <= x).length;
    const right = runs.filter(([a]) => a >= x).length;
    const crossing = runs.filter(([a, b]) => a < x && b > x).length;
    if (left >= 3 && right >= 3 && 3 * crossing < Math.min(left, right) && !out.some((g) => Math.abs(g - x) < 20))
      out.push(x);
  }
  return out.sort((a, b) => a - b);
}

/**
 * Grids of alignment tables among the spans not yet `taken`. Aligned blocks that are text set in
 * columns (notTable.ts) are no grid; they go to `columns` when given.
 */
export function alignedGrids(
  spans: TextSpan[],
  taken: Set<number>,
  pageWidth: number,
  columns: TextColumns[] = [],
): Grid[] {
  // On an OCR page the lines of two columns set a narrow gutter apart (0.15 in: less than the
  // word gap that joins prose runs) are joined into one run across it, so no layout gutter is
  // seen and a table in one column takes in the next column's line pieces (the detector cuts
  // justified lines at their wide spaces, so those pieces look like cells). Runs are broken at
  // the page's white column gaps (the layout's own gutter test); gutters() below still keeps
  // only those with prose on both sides that no prose run crosses, so a white gap inside a
  // full-width table under a paragraph stays a cell border.
  const ocr = spans.some((s) => s.fontName === 'ocr');
  const pageGaps = ocr
    ? findGutters(
        spans.filter((_, i) => !taken.has(i)),
        pageWidth,
      ).map((g) => (g.x0 + g.x1) / 2)
    : [];
  // Runs holding two narrow columns' words are cut at the columns' gap (narrowCols.ts).
  const all = splitAtColumnGaps(lines(spans, taken, pageWidth, { pageGaps }), spans, (l) => CELL_GAP_EM * l.size);
  const cuts = [-Infinity, ...gutters(all, pageGaps), Infinity];
  const grids: Grid[] = [];
  for (let b = 0; b + 1 < cuts.length; b++) {
    // This band's share of each line. Lines that are all prose are left out: a text column
    // beside a table interleaves with its rows.
    const band = all
      .map((l) => ({ ...l, pieces: l.pieces.filter((p) => p.x0 >= cuts[b]! && p.x1 <= cuts[b + 1]!) }))
      .filter((l) => l.pieces.length > 0);
    grids.push(...blocks(band, all, spans, columns));
  }
  return grids;
}

/**
 * A gap of the block that is a layout gutter: no word run of the lines around the block crosses
 * it, and text lies on both sides of it (a text column beside the table).
 */
function gutterIn(block: Line[], g: [number, number][], all: Line[]): number | undefined {
  const y0 = block[0]!.y0;
  const y1 = block[block.length - 1]!.y1;
  const margin = 5 * (block[0]!.y1 - block[0]!.y0);
  // Lines are compared by position: the block holds per-band copies of the lines.
  const own = new Set(block.map((l) => `${l.y0},${l.y1}`));
  const around = all
    .filter((l) => !own.has(`${l.y0},${l.y1}`) && l.y1 > y0 - margin && l.y0 < y1 + margin)
    .flatMap((l) => l.runs);
  const pieces = block.flatMap((l) => l.pieces);
  for (const [a, b] of g) {
    const x = (a + b) / 2;
    if (around.some(([s, e]) => s < x && e > x)) continue;
    // Text above or below on each side, in line with the block's own pieces on that side: a
    // text column continuing past the block, not a stray list in the margin.
    const left = pieces.filter((p) => p.x1 <= x);
    const right = pieces.filter((p) => p.x0 >= x);
    const lx0 = Math.min(...left.map((p) => p.x0));
    const rx1 = Math.max(...right.map((p) => p.x1));
    const nLeft = around.filter(([, e]) => e <= x && e > lx0).length;
    const nRight = around.filter(([s]) => s >= x && s < rx1).length;
    if (nLeft >= 3 && nRight >= 3) return x;
  }
  return undefined;
}

/**
 * The block's last line is a total under a column of figures (an invoice's "845.00" under its
 * amounts): one number, close under the line before, its right edge on the right edge of
 * numbers in two or more rows above. A row of the table, not a note after it.
 */
function totalRow(block: Line[]): boolean {
  const last = block[block.length - 1]!;
  const prev = block[block.length - 2];
  if (!prev || last.pieces.length !== 1 || !last.pieces[0]!.numeric) return false;
  const lineH = Math.max(last.y1 - last.y0, prev.y1 - prev.y0);
  if (last.y0 - prev.y1 > 2 * lineH) return false;
  const x1 = last.pieces[0]!.x1;
  const aligned = block.slice(0, -1).filter((l) => l.pieces.some((p) => p.numeric && Math.abs(p.x1 - x1) <= 2)).length;
  return aligned >= 2;
}

function blocks(ls: Line[], all: Line[], spans: TextSpan[], columns: TextColumns[]): Grid[] {
  const grids: Grid[] = [];
  let i = 0;
  while (i < ls.length) {
    if (ls[i]!.pieces.length < 2) {
      i++;
      continue;
    }
    // Grow a block of consecutive lines that stay close together.
    let j = i + 1;
    while (j < ls.length) {
      const prev = ls[j - 1]!;
      const cur = ls[j]!;
      const lineH = Math.max(prev.y1 - prev.y0, cur.y1 - cur.y0);
      // Rows can be tall (cell padding) and a row can hold one cell (a row span beside it):
      // the block grows over both, and isTableLike judges the whole.
      if (cur.y0 - prev.y1 > 3.2 * lineH) break;
      if (j + 1 - i >= MIN_LINES && !isTableLike(ls.slice(i, j + 1))) break;
      j++;
    }
    // Shrink from the end until the block is table-like (a trailing line may close the gaps).
    let k = j;
    while (k - i >= MIN_LINES && !isTableLike(ls.slice(i, k))) k--;
    // A one-run line at either end is a caption or a heading next to the table, not a row.
    let i0 = i;
    while (k - i0 > MIN_LINES && ls[i0]!.pieces.length < 2) i0++;
    while (k - i0 > MIN_LINES && ls[k - 1]!.pieces.length < 2 && !totalRow(ls.slice(i0, k))) k--;
    if (k - i0 >= MIN_LINES && isTableLike(ls.slice(i0, k))) {
      const block = ls.slice(i0, k);
      const size = block.reduce((a, l) => a + l.size, 0) / block.length;
      const g = gaps(block, CELL_GAP_EM * size);
      const gutter = gutterIn(block, g, all);
      if (gutter !== undefined) {
        // Search each side of the gutter on its own.
        for (const keep of [(p: Piece) => p.x1 <= gutter, (p: Piece) => p.x0 >= gutter]) {
          const side = ls.map((l) => ({ ...l, pieces: l.pieces.filter(keep) })).filter((l) => l.pieces.length > 0);
          grids.push(...blocks(side, all, spans, columns));
        }
        return grids;
      }
      // Text set in columns (newspaper columns, stat blocks) or a numbered list flowed into
      // columns: aligned, but not a table (notTable.ts). Its lines go to the reading order whole;
      // no smaller block inside it is tried.
      const x0 = Math.min(...block.flatMap((l) => l.pieces.map((p) => p.x0)));
      const x1 = Math.max(...block.flatMap((l) => l.pieces.map((p) => p.x1)));
      const textGutters = textColumnGutters(block, g, spans) ?? columnMajorListGutters(block, g, spans);
      if (textGutters) {
        columns.push({
          bbox: { x0, y0: block[0]!.y0, x1, y1: block[block.length - 1]!.y1 },
          gutters: textGutters.map(([a, b]) => ({ x0: a, x1: b })),
        });
        i = k;
        continue;
      }
      const xs = [x0 - 1, ...g.map(([a, b]) => (a + b) / 2), x1 + 1];
      // Row boundaries halfway between lines.
      const ys = [block[0]!.y0 - 1];
      for (let r = 1; r < block.length; r++) ys.push((block[r - 1]!.y1 + block[r]!.y0) / 2);
      ys.push(block[block.length - 1]!.y1 + 1);
      const only = new Set(block.flatMap((l) => l.pieces.flatMap((p) => p.spans)));
      grids.push({ xs, ys, mergeRight: () => false, mergeDown: () => false, only });
      i = k;
    } else i++;
  }
  return grids;
}

/**
 * The user said "this is a table" (region reparse): one grid over all the spans, each line a row
 * and each white gap through all lines a column boundary, with none of the tests above.
 */
export function forcedGrid(spans: TextSpan[], pageWidth: number): Grid | undefined {
  const ls = lines(spans, new Set(), pageWidth, { keepProse: true }).filter((l) => l.pieces.length > 0);
  if (ls.length === 0) return undefined;
  const size = ls.reduce((a, l) => a + l.size, 0) / ls.length;
  // Any clear gap counts here: spans and merged cells can leave only a few points between columns.
  const g = gaps(ls, Math.max(2, 0.15 * size));
  const x0 = Math.min(...ls.flatMap((l) => l.pieces.map((p) => p.x0)));
  const x1 = Math.max(...ls.flatMap((l) => l.pieces.map((p) => p.x1)));
  const ys = [ls[0]!.y0 - 1];
  for (let r = 1; r < ls.length; r++) ys.push((ls[r - 1]!.y1 + ls[r]!.y0) / 2);
  ys.push(ls[ls.length - 1]!.y1 + 1);
  return {
    xs: [x0 - 1, ...g.map(([a, b]) => (a + b) / 2), x1 + 1],
    ys,
    mergeRight: () => false,
    mergeDown: () => false,
  };
}
