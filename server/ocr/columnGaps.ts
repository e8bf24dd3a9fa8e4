/**
 * Column gaps found on the full-resolution page. The detector sees the page shrunk to 960 px:
 * there a narrow gutter (0.15 in, ~30 px at 200 dpi) is ~11 px wide, about a word space, and DB
 * joins a left-column line and its right-column neighbour into one box. The page at full
 * resolution still shows the gutter as a strip of white running down through several lines, in
 * the deskewed frame (on a sheet 0.8° askew a gutter drifts by more than its own width down the
 * page). A recognised line that crosses such a strip is cut there into one line per column; a
 * word space, however wide, does not run down through the lines above or below it.
 */
import type { DecodedChar, DecodedLine } from './ctc';
import type { Point } from './types';

/** Ink per column of the deskewed page, summed down the rows: any box's ink in O(1) per column. */
export interface InkColumns {
  width: number;
  height: number;
  /** `sum[y * width + x]`: ink pixels of column x in rows < y. */
  sum: Uint16Array | Uint32Array;
}

/** Darker than this (0–255) is ink: scan noise and JPEG ringing on paper stay well above it (skew.ts too). */
export const INK_LEVEL = 128;
/** A cut needs white this wide, in line heights (a 0.1 in gutter is ~0.5 of a 10 pt line's box). */
const MIN_GAP_LINES = 0.4;
/** The next column's edge is looked for this many line heights above and below the line. */
const RUN_LINES = 4;
/** A column of the strip is white with up to this share of its rows inked (specks, ringing). */
const SPECK_SHARE = 0.02;
/** Each piece keeps at least this many characters (a cut beside a bullet or a stray mark is none). */
const MIN_PIECE_CHARS = 3;

/**
 * The page's ink in the upright deskewed frame (`width × height`). `toSource` maps a point of
 * that frame to the source image, where `gray(x, y)` reads a pixel (0 black … 255 white).
 */
export function inkColumns(
  width: number,
  height: number,
  toSource: (p: Point) => Point,
  srcW: number,
  srcH: number,
  gray: (i: number) => number,
): InkColumns {
  const W = Math.max(1, Math.round(width));
  const H = Math.max(1, Math.round(height));
  const sum = H + 1 < 65536 ? new Uint16Array(W * (H + 1)) : new Uint32Array(W * (H + 1));
  // The frame map is affine (a quarter turn and a small rotation): step it along each row.
  const o = toSource([0, 0]);
  const ex = toSource([1, 0]);
  const ey = toSource([0, 1]);
  const ax = [ex[0] - o[0], ex[1] - o[1]];
  const ay = [ey[0] - o[0], ey[1] - o[1]];
  for (let y = 0; y < H; y++) {
    let sx = o[0] + ay[0] * (y + 0.5) + ax[0] * 0.5;
    let sy = o[1] + ay[1] * (y + 0.5) + ax[1] * 0.5;
    const row = y * W;
    for (let x = 0; x < W; x++, sx += ax[0], sy += ax[1]) {
      const ix = sx | 0;
      const iy = sy | 0;
      const inked = ix >= 0 && iy >= 0 && ix < srcW && iy < srcH && gray(iy * srcW + ix) < INK_LEVEL ? 1 : 0;
      sum[row + W + x] = sum[row + x] + inked;
    }
  }
  return { width: W, height: H, sum };
}

/** Ink pixels of column x between rows y0 and y1 (clamped to the page). */
function columnInk(ink: InkColumns, x: number, y0: number, y1: number): number {
  const a = Math.max(0, Math.min(ink.height, Math.round(y0)));
  const b = Math.max(0, Math.min(ink.height, Math.round(y1)));
  if (b <= a || x < 0 || x >= ink.width) return 0;
  return ink.sum[b * ink.width + x] - ink.sum[a * ink.width + x];
}

/** Runs of white columns between x0 and x1 over rows y0–y1, at least `min` wide. */
function whiteRuns(
  ink: InkColumns,
  x0: number,
  x1: number,
  y0: number,
  y1: number,
  min: number,
): { x0: number; x1: number }[] {
  const tol = 1 + SPECK_SHARE * Math.max(0, y1 - y0);
  const out: { x0: number; x1: number }[] = [];
  let start = -1;
  const a = Math.max(0, Math.floor(x0));
  const b = Math.min(ink.width, Math.ceil(x1));
  for (let x = a; x <= b; x++) {
    const white = x < b && columnInk(ink, x, y0, y1) <= tol;
    if (white && start < 0) start = x;
    if (!white && start >= 0) {
      if (x - start >= min) out.push({ x0: start, x1: x });
      start = -1;
    }
  }
  return out;
}

/**
 * Where a line crosses a column gap: x positions in the deskewed frame. `box` is the line's
 * extent there (x from its first to its last character, y its detected box). A gap in the line
 * is a gutter when the rows above or below show the next column's left edge where the gap ends:
 * their first ink after the gap's start lies at its end, in several slabs. Left-aligned and
 * justified text keep that edge straight; a river of word spaces in justified text, a wide space
 * in a title or after a heading's end has no text starting at one x beside it.
 */
export function gutterCuts(ink: InkColumns, box: { x0: number; y0: number; x1: number; y1: number }): number[] {
  const h = box.y1 - box.y0;
  if (h <= 0) return [];
  const min = Math.max(4, MIN_GAP_LINES * h);
  // White through the line's letters (its box's middle, clear of the unclip margin), away from its ends.
  const y0 = box.y0 + 0.2 * h;
  const y1 = box.y1 - 0.2 * h;
  const cuts: number[] = [];
  for (const g of whiteRuns(ink, box.x0 + h, box.x1 - h, y0, y1, min))
    if (
      edgeSlabs(ink, g, box.y0 - RUN_LINES * h, box.y0, h) + edgeSlabs(ink, g, box.y1, box.y1 + RUN_LINES * h, h) >=
      MIN_EDGE_SLABS
    )
      cuts.push((g.x0 + g.x1) / 2);
  return cuts;
}

/** Slabs of this many line heights are read for the next column's edge. */
const SLAB_LINES = 0.5;
/**
 * The edge must show in this many slabs (two and a half lines of the next column beside the gap):
 * in justified text a word start lines up with a wide space's end in a line or two nearby (up to
 * 4 slabs measured on the narrow-gutter XeLaTeX page of test/ocr/columnGaps.test.ts), a column's edge in every line.
 */
const MIN_EDGE_SLABS = 5;
/** …starting within this share of a line height of the gap's end (side bearings of the first letters). */
const EDGE_TOLERANCE = 0.12;

/** Slabs of rows y0–y1 whose first ink after the gap's start lies at the gap's end. */
function edgeSlabs(ink: InkColumns, gap: { x0: number; x1: number }, y0: number, y1: number, h: number): number {
  const slab = Math.max(2, SLAB_LINES * h);
  const tol = Math.max(3, EDGE_TOLERANCE * h);
  let n = 0;
  for (let y = Math.max(0, y0); y + slab <= Math.min(ink.height, y1); y += slab) {
    let x = Math.max(0, Math.floor(gap.x0));
    const stop = Math.min(ink.width, Math.ceil(gap.x1 + tol));
    while (x < stop && columnInk(ink, x, y, y + slab) < 2) x++;
    if (x < stop && Math.abs(x - gap.x1) <= tol) n++;
  }
  return n;
}

/**
 * A decoded line cut at fractions of its length (sorted, inside 0–1): one piece per column, each
 * with its own characters (steps counted from the piece's start) and the fractions it spans.
 * Cuts that would leave a piece with too few characters are skipped.
 */
export function cutDecoded(dl: DecodedLine, fractions: number[]): { dl: DecodedLine; f0: number; f1: number }[] {
  const pieces: { dl: DecodedLine; f0: number; f1: number }[] = [];
  let from = 0; // first char of the current piece
  let startStep = 0;
  for (const f of fractions) {
    const at = f * dl.steps;
    let k = from;
    while (k < dl.chars.length && (dl.chars[k].t0 + dl.chars[k].t1) / 2 < at) k++;
    const left = dl.chars.slice(from, k).filter((c) => c.ch.trim() !== '');
    const right = dl.chars.slice(k).filter((c) => c.ch.trim() !== '');
    if (left.length < MIN_PIECE_CHARS || right.length < MIN_PIECE_CHARS) continue;
    const endStep = Math.ceil(at);
    pieces.push(piece(dl.chars.slice(from, k), startStep, endStep, dl.steps));
    from = k;
    startStep = Math.floor(at);
  }
  if (pieces.length === 0) return [{ dl, f0: 0, f1: 1 }];
  pieces.push(piece(dl.chars.slice(from), startStep, dl.steps, dl.steps));
  return pieces;
}

function piece(
  chars: DecodedChar[],
  s0: number,
  s1: number,
  steps: number,
): { dl: DecodedLine; f0: number; f1: number } {
  // Spaces at a cut belong to neither column.
  let a = 0;
  let b = chars.length;
  while (a < b && chars[a].ch.trim() === '') a++;
  while (b > a && chars[b - 1].ch.trim() === '') b--;
  const own = chars
    .slice(a, b)
    .map((c, i) => ({ ...c, t0: c.t0 - s0, t1: c.t1 - s0, spaceBefore: i === 0 ? 0 : c.spaceBefore }));
  const score = own.length > 0 ? own.reduce((s, c) => s + c.prob, 0) / own.length : 0;
  return { dl: { chars: own, steps: s1 - s0, score }, f0: s0 / steps, f1: s1 / steps };
}
