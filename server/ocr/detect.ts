/**
 * Text detection: PaddleOCR v4's DB model, then DB post-processing written here — threshold the
 * probability map, take each connected region, fit its minimum-area rotated rectangle, score it
 * by the mean probability inside, and "unclip" it (the model predicts text shrunk toward its
 * centre line; expanding by area × ratio / perimeter restores the full glyph height).
 */
import { Tensor, type Session } from '../onnx/runtime';
import { minAreaRect, type RotatedRect } from './geometry';
import { detectorTensor, type RgbPlanes } from './image';
import type { Point } from './types';

export interface DetectOptions {
  /** Longest side of the detector input (PaddleOCR's limit_side_len). */
  maxSide: number;
  binaryThreshold: number;
  boxThreshold: number;
  unclipRatio: number;
}

export const DEFAULT_DETECT: DetectOptions = {
  maxSide: 960,
  binaryThreshold: 0.3,
  boxThreshold: 0.6,
  unclipRatio: 1.5,
};

const MAX_CANDIDATES = 1000;

/** A detected text region in input-image pixels. */
export interface Detection {
  rect: RotatedRect;
  score: number;
}

/** Detector input size: fits `maxSide`, both sides multiples of 32 (the network downsamples 32×). */
export function detectorSize(width: number, height: number, maxSide: number): { w: number; h: number } {
  const ratio = Math.max(width, height) > maxSide ? maxSide / Math.max(width, height) : 1;
  const w = Math.max(32, Math.round((width * ratio) / 32) * 32);
  const h = Math.max(32, Math.round((height * ratio) / 32) * 32);
  return { w, h };
}

export async function detect(
  session: Session,
  planes: RgbPlanes,
  opts: DetectOptions = DEFAULT_DETECT,
): Promise<Detection[]> {
  const { w, h } = detectorSize(planes.width, planes.height, opts.maxSide);
  const input = new Tensor('float32', detectorTensor(planes, w, h), [1, 3, h, w]);
  const out = await session.run({ [session.inputNames[0]]: input });
  const prob = out[session.outputNames[0]].data as Float32Array;
  const found = dbBoxes(prob, w, h, opts);
  // Back to input pixels. The two axes scale differently (rounding to 32), so refit the rectangle.
  const sx = planes.width / w;
  const sy = planes.height / h;
  // PaddleOCR's max_candidates: a page of noise must not become thousands of recognizer runs.
  if (found.length > MAX_CANDIDATES)
    found
      .sort((a, b) => b.rect.halfLong * b.rect.halfShort - a.rect.halfLong * a.rect.halfShort)
      .splice(MAX_CANDIDATES);
  return found.map((d) => ({
    score: d.score,
    rect: minAreaRect(corners(d.rect).map(([x, y]) => [x * sx, y * sy] as Point)),
  }));
}

export function corners(r: RotatedRect): Point[] {
  const nx = -r.uy;
  const ny = r.ux;
  const a = r.halfLong;
  const b = r.halfShort;
  return [
    [r.cx - a * r.ux - b * nx, r.cy - a * r.uy - b * ny],
    [r.cx + a * r.ux - b * nx, r.cy + a * r.uy - b * ny],
    [r.cx + a * r.ux + b * nx, r.cy + a * r.uy + b * ny],
    [r.cx - a * r.ux + b * nx, r.cy - a * r.uy + b * ny],
  ];
}

/** DB post-processing on a probability map of `w × h`; boxes in map pixels. */
export function dbBoxes(prob: Float32Array, w: number, h: number, opts: DetectOptions): Detection[] {
  const n = w * h;
  const label = new Int32Array(n); // 0 = background/unvisited, else component id
  const stack = new Int32Array(n);
  const thr = opts.binaryThreshold;
  const result: Detection[] = [];
  let nextId = 0;
  // Row extents of the current component, indexed by row.
  const rowMin = new Int32Array(h).fill(w);
  const rowMax = new Int32Array(h).fill(-1);
  for (let start = 0; start < n; start++) {
    if (label[start] !== 0 || prob[start] <= thr) continue;
    const id = ++nextId;
    let top = 0;
    stack[top++] = start;
    label[start] = id;
    let yMin = h,
      yMax = -1;
    let count = 0;
    while (top > 0) {
      const p = stack[--top];
      const y = (p / w) | 0;
      const x = p - y * w;
      count++;
      if (y < yMin) yMin = y;
      if (y > yMax) yMax = y;
      if (x < rowMin[y]) rowMin[y] = x;
      if (x > rowMax[y]) rowMax[y] = x;
      // 8-connected neighbours, like OpenCV's contour tracing.
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= h) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= w || (dx === 0 && dy === 0)) continue;
          const q = yy * w + xx;
          if (label[q] === 0 && prob[q] > thr) {
            label[q] = id;
            stack[top++] = q;
          }
        }
      }
    }
    // The leftmost and rightmost pixel of each row carry the whole convex hull.
    const pts: Point[] = [];
    for (let y = yMin; y <= yMax; y++) {
      if (rowMax[y] >= 0) {
        pts.push([rowMin[y] + 0.5, y + 0.5]);
        if (rowMax[y] !== rowMin[y]) pts.push([rowMax[y] + 0.5, y + 0.5]);
      }
      rowMin[y] = w;
      rowMax[y] = -1;
    }
    if (count < 4) continue;
    const rect = minAreaRect(pts);
    if (Math.min(rect.halfLong, rect.halfShort) * 2 < 3) continue;
    const score = meanInside(prob, w, h, rect);
    if (score < opts.boxThreshold) continue;
    const grown = unclip(rect, opts.unclipRatio);
    if (grown.halfShort * 2 < 5) continue;
    result.push({ rect: grown, score });
  }
  return result;
}

/** Mean probability over the map pixels whose centres fall inside the rectangle. */
function meanInside(prob: Float32Array, w: number, h: number, r: RotatedRect): number {
  const cs = corners(r);
  let x0 = Infinity,
    x1 = -Infinity,
    y0 = Infinity,
    y1 = -Infinity;
  for (const [x, y] of cs) {
    x0 = Math.min(x0, x);
    x1 = Math.max(x1, x);
    y0 = Math.min(y0, y);
    y1 = Math.max(y1, y);
  }
  const xa = Math.max(0, Math.floor(x0)),
    xb = Math.min(w - 1, Math.ceil(x1));
  const ya = Math.max(0, Math.floor(y0)),
    yb = Math.min(h - 1, Math.ceil(y1));
  let sum = 0;
  let cnt = 0;
  // Half a pixel of slack so a one-pixel-thin rectangle still covers its own pixels.
  const la = r.halfLong + 0.5,
    lb = r.halfShort + 0.5;
  for (let y = ya; y <= yb; y++) {
    for (let x = xa; x <= xb; x++) {
      const dx = x + 0.5 - r.cx;
      const dy = y + 0.5 - r.cy;
      if (Math.abs(dx * r.ux + dy * r.uy) <= la && Math.abs(-dx * r.uy + dy * r.ux) <= lb) {
        sum += prob[y * w + x];
        cnt++;
      }
    }
  }
  return cnt > 0 ? sum / cnt : 0;
}

/**
 * Grows the rectangle by d = area × ratio / perimeter on every side (the polygon offset
 * PaddleOCR does with a clipper library; for a rectangle the offset's bounding rectangle is exact).
 */
export function unclip(r: RotatedRect, ratio: number): RotatedRect {
  const L = r.halfLong * 2;
  const S = r.halfShort * 2;
  const perimeter = 2 * (L + S);
  const d = perimeter > 0 ? (L * S * ratio) / perimeter : 0;
  return { ...r, halfLong: r.halfLong + d, halfShort: r.halfShort + d };
}
