/**
 * Page skew from the detector's probability map by projection profile: the angle at which the
 * text pixels, projected across the lines, pile into the sharpest rows. The rectangles fitted
 * to single lines cannot tell a small skew: on a blurred scan (issue 31's harder twins) a line of
 * a narrow column rises a pixel or two of the map over its length, and most fits come out level,
 * so their median read 0° on pages turned 0.66°. The profile weighs every line of the page at once.
 */

/** Widest skew searched, degrees (engine.ts treats more as "not a skewed scan"). */
const SEARCH_DEG = 5;
const COARSE_STEP = 0.1;
const FINE_STEP = 0.01;
/** Fewer text pixels than this and the profile says nothing. */
const MIN_PIXELS = 200;

/**
 * Skew in degrees of text lines in a `w × h` probability map (`thr`: text threshold), as the
 * angle of a line's direction from the x axis with y pointing down (atan2(dy, dx), the
 * convention of geometry.ts `skewOf`); `sx`, `sy` scale map pixels to image pixels.
 * Undefined when too little text to tell.
 */
export function profileSkew(prob: Float32Array, w: number, h: number, thr: number, sx = 1, sy = 1): number | undefined {
  const xs: number[] = [];
  const ys: number[] = [];
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++)
      if (prob[y * w + x] > thr) {
        // Image pixels, so the angle is the image's, not the stretched map's.
        xs.push(x * sx);
        ys.push(y * sy);
      }
  if (xs.length < MIN_PIXELS) return undefined;
  const span = Math.hypot(w * sx, h * sy);
  // Rows one map pixel high (in image pixels): the map's own resolution.
  const bin = Math.max(sx, sy);
  const bins = new Float64Array(Math.ceil((2 * span) / bin) + 2);
  const sharpness = (deg: number): number => {
    const t = (deg * Math.PI) / 180;
    const c = Math.cos(t);
    const s = Math.sin(t);
    bins.fill(0);
    for (let i = 0; i < xs.length; i++) bins[Math.floor((ys[i] * c - xs[i] * s + span) / bin)]++;
    let sum = 0;
    for (let i = 0; i < bins.length; i++) sum += bins[i] * bins[i];
    return sum;
  };
  const best = (from: number, to: number, step: number): number => {
    let arg = from;
    let top = -1;
    for (let d = from; d <= to + step / 2; d += step) {
      const v = sharpness(d);
      if (v > top) [top, arg] = [v, d];
    }
    return arg;
  };
  const coarse = best(-SEARCH_DEG, SEARCH_DEG, COARSE_STEP);
  return best(coarse - COARSE_STEP, coarse + COARSE_STEP, FINE_STEP);
}
