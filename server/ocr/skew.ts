/**
 * The page's skew from the ink of its text lines at full resolution. Each line rectangle's own
 * angle is a poor measure on a narrow-column scan: a rectangle fitted to a short piece of text on
 * the detector's 960 px map reads level whatever the tilt (Chromium's justified lines come as
 * pieces; on a narrow-gutter twin turned 0.37° their median read 0°, the page was not deskewed,
 * and its prose was taken for a table). The ink inside the text boxes, projected across the page,
 * makes the sharpest rows at the page's angle. Only ink inside text boxes counts: a wide figure's
 * strokes do not vote (a projection profile of the whole detector map read a page turned 0.80° as
 * −0.48°, issue 31).
 */
import { INK_LEVEL } from './columnGaps';
import type { Point } from './types';

/** Ink points in the upright frame (x, y pairs), box by box: box k's points start at `starts[k]`. */
export interface InkPoints {
  xs: Float32Array;
  ys: Float32Array;
  starts: number[];
}

/** At most this many points are projected per angle; a denser page is sampled evenly. */
const MAX_POINTS = 200_000;
/** See inkSkew's coarse pass. */
const COARSE_STRIDE = 4;
/** Below this many points the ink says little: the caller keeps the rectangles' own angles. */
export const MIN_INK_POINTS = 2_000;

/**
 * The dark pixels inside the quads (source image coordinates, each pixel once), mapped to the
 * upright frame by `toUpright`.
 */
export function textInk(
  quads: Point[][],
  width: number,
  height: number,
  gray: (i: number) => number,
  toUpright: (p: Point) => Point,
): InkPoints {
  const seen = new Uint8Array(width * height);
  const idx: number[] = [];
  const boxOf: number[] = [];
  quads.forEach((q, b) => {
    const x0 = Math.max(0, Math.floor(Math.min(...q.map((p) => p[0]))));
    const x1 = Math.min(width, Math.ceil(Math.max(...q.map((p) => p[0]))));
    const y0 = Math.max(0, Math.floor(Math.min(...q.map((p) => p[1]))));
    const y1 = Math.min(height, Math.ceil(Math.max(...q.map((p) => p[1]))));
    for (let y = y0; y < y1; y++)
      for (let x = x0; x < x1; x++) {
        const i = y * width + x;
        if (seen[i]) continue;
        seen[i] = 1;
        if (gray(i) < INK_LEVEL) {
          idx.push(i);
          boxOf.push(b);
        }
      }
  });
  const step = Math.max(1, Math.ceil(idx.length / MAX_POINTS));
  const n = Math.floor(idx.length / step);
  const xs = new Float32Array(n);
  const ys = new Float32Array(n);
  const starts: number[] = [];
  for (let k = 0; k < n; k++) {
    const i = idx[k * step];
    if (k === 0 || boxOf[k * step] !== boxOf[(k - 1) * step]) starts.push(k);
    const [ux, uy] = toUpright([(i % width) + 0.5, Math.floor(i / width) + 0.5]);
    xs[k] = ux;
    ys[k] = uy;
  }
  return { xs, ys, starts };
}

/**
 * The angle (degrees, clockwise on screen) within ±maxDeg at which the ink's rows are sharpest:
 * the sum of squares of each box's projection onto the page's height, one-pixel bins.
 */
export function inkSkew(ink: InkPoints, maxDeg: number): number {
  const { xs, ys, starts } = ink;
  // Each box is profiled on its own and the sharpness summed: on a page of three columns whose
  // rows are not level with each other, one profile across the page is sharpest at the angle
  // that brings the columns' rows together (a page turned +0.80° read as -0.45°), not the page's.
  const ends = [...starts.slice(1), xs.length];
  const cx: number[] = [];
  const cy: number[] = [];
  let r = 1;
  starts.forEach((a, g) => {
    let x0 = Infinity,
      x1 = -Infinity,
      y0 = Infinity,
      y1 = -Infinity;
    for (let k = a; k < ends[g]; k++) {
      x0 = Math.min(x0, xs[k]);
      x1 = Math.max(x1, xs[k]);
      y0 = Math.min(y0, ys[k]);
      y1 = Math.max(y1, ys[k]);
    }
    cx.push((x0 + x1) / 2);
    cy.push((y0 + y1) / 2);
    r = Math.max(r, Math.hypot(x1 - x0, y1 - y0) / 2);
  });
  const off = Math.ceil(r) + 1;
  const bins = new Float64Array(2 * off + 1);
  // The coarse pass reads every COARSE_STRIDE-th point: rows a quarter degree apart differ by more.
  const score = (deg: number, stride = 1): number => {
    const a = (deg * Math.PI) / 180;
    const c = Math.cos(a);
    const s = Math.sin(a);
    let q = 0;
    starts.forEach((from, g) => {
      let lo = bins.length;
      let hi = -1;
      for (let k = from; k < ends[g]; k += stride) {
        const b = Math.round((ys[k] - cy[g]) * c - (xs[k] - cx[g]) * s) + off;
        bins[b]++;
        if (b < lo) lo = b;
        if (b > hi) hi = b;
      }
      for (let b = lo; b <= hi; b++) {
        q += bins[b] * bins[b];
        bins[b] = 0;
      }
    });
    return q;
  };
  // Coarse to fine: quarter degrees over the whole range on a sample, then twentieths and
  // hundredths around the best; of angles that score alike, the middle.
  let best = 0;
  const around = (centre: number, half: number, step: number, stride: number) => {
    let top = -1;
    const tried: { d: number; q: number }[] = [];
    for (let d = centre - half; d <= centre + half + 1e-9; d += step) {
      const q = score(d, stride);
      tried.push({ d, q });
      if (q > top) [best, top] = [d, q];
    }
    return tried.filter((t) => t.q >= top * 0.999);
  };
  around(0, Math.round(maxDeg / 0.25) * 0.25, 0.25, COARSE_STRIDE);
  around(best, 0.25, 0.05, 2);
  const near = around(best, 0.05, 0.01, 1);
  return Math.round((near.reduce((a, t) => a + t.d, 0) / near.length) * 100) / 100;
}
