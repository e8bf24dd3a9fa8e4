/**
 * Text detection with PaddleOCR v4's DB model: the page is shrunk so its long side is at most
 * 960 px (both sides multiples of 32, as the network's strides need), the model gives a
 * probability map, and DB post-processing turns it into rotated rectangles — one per text line
 * segment — in original image pixels.
 */
import { Tensor, type Session } from '../onnx/runtime';
import {
  insideQuad,
  minAreaRect,
  normalizeRect,
  rectCorners,
  unclipRect,
  type RotatedRect,
} from './geometry';
import { resizeToPlanarBgr } from './resample';
import type { Point, RgbaImage } from './types';

export const DET_LIMIT = 960;
export const DB_THRESHOLD = 0.3;
export const DB_BOX_THRESHOLD = 0.6;
export const DB_UNCLIP = 1.5;
const MIN_SIDE = 3;
const MAX_CANDIDATES = 3000;

export interface DetectedBox {
  /** Rotated rectangle in original image pixels. */
  rect: RotatedRect;
  /** Mean text probability inside the shrunk box. */
  score: number;
}

export function detSize(width: number, height: number): { dw: number; dh: number } {
  const scale = Math.min(1, DET_LIMIT / Math.max(width, height));
  const dw = Math.max(32, Math.round((width * scale) / 32) * 32);
  const dh = Math.max(32, Math.round((height * scale) / 32) * 32);
  return { dw, dh };
}

export async function detect(session: Session, img: RgbaImage): Promise<DetectedBox[]> {
  const { dw, dh } = detSize(img.width, img.height);
  // PaddleOCR normalizes its BGR array with the ImageNet constants in the order listed, so the
  // "red" constants land on the blue channel; the model was trained that way.
  const input = resizeToPlanarBgr(img.data, img.width, img.height, dw, dh, [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]);
  const out = await session.run({ x: new Tensor('float32', input, [1, 3, dh, dw]) });
  const prob = out[session.outputNames[0]!]!.data as Float32Array;
  return dbPostprocess(prob, dw, dh, img.width / dw, img.height / dh);
}

/**
 * DB post-processing. Pixels above DB_THRESHOLD are grouped into 8-connected components; each
 * component's boundary pixels give a minimum-area rectangle, kept when the mean probability
 * inside it reaches DB_BOX_THRESHOLD, then grown by the unclip distance and scaled to the
 * original image (sx, sy = original pixels per map pixel).
 */
export function dbPostprocess(prob: Float32Array, w: number, h: number, sx: number, sy: number): DetectedBox[] {
  const label = new Int32Array(w * h);
  const stack = new Int32Array(w * h);
  const boxes: DetectedBox[] = [];
  let next = 0;
  for (let start = 0; start < w * h; start++) {
    if (prob[start]! <= DB_THRESHOLD || label[start] !== 0) continue;
    const id = ++next;
    if (id > MAX_CANDIDATES) break;
    // Flood fill, collecting boundary pixels (a 4-neighbour is background or off the map).
    let sp = 0;
    stack[sp++] = start;
    label[start] = id;
    const boundary: Point[] = [];
    while (sp > 0) {
      const p = stack[--sp]!;
      const x = p % w;
      const y = (p - x) / w;
      let edge = false;
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy;
        for (let dx = -1; dx <= 1; dx++) {
          if (dx === 0 && dy === 0) continue;
          const xx = x + dx;
          if (xx < 0 || yy < 0 || xx >= w || yy >= h) {
            if (dx === 0 || dy === 0) edge = true;
            continue;
          }
          const q = yy * w + xx;
          if (prob[q]! <= DB_THRESHOLD) {
            if (dx === 0 || dy === 0) edge = true;
            continue;
          }
          if (label[q] === 0) {
            label[q] = id;
            stack[sp++] = q;
          }
        }
      }
      // Pixel centres, as a contour tracer would give them.
      if (edge) boundary.push([x + 0.5, y + 0.5]);
    }
    const rect = minAreaRect(boundary);
    if (Math.min(rect.w, rect.h) < MIN_SIDE) continue;
    const score = meanInside(prob, w, h, rectCorners(rect));
    if (score < DB_BOX_THRESHOLD) continue;
    const grown = unclipRect(rect, DB_UNCLIP);
    if (Math.min(grown.w, grown.h) < MIN_SIDE + 2) continue;
    // Map to the original image; the two scales differ slightly (rounding to 32), so the
    // rectangle becomes a parallelogram there and is re-fitted.
    const corners = rectCorners(grown).map(([x, y]) => [x * sx, y * sy] as Point);
    boxes.push({ rect: normalizeRect(minAreaRect(corners)), score });
  }
  return boxes;
}

/** Mean probability over the map pixels whose centres fall inside the quad. */
function meanInside(prob: Float32Array, w: number, h: number, quad: Point[]): number {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const [x, y] of quad) {
    x0 = Math.min(x0, x);
    y0 = Math.min(y0, y);
    x1 = Math.max(x1, x);
    y1 = Math.max(y1, y);
  }
  const xa = Math.max(0, Math.floor(x0)), xb = Math.min(w - 1, Math.ceil(x1));
  const ya = Math.max(0, Math.floor(y0)), yb = Math.min(h - 1, Math.ceil(y1));
  let sum = 0, n = 0;
  for (let y = ya; y <= yb; y++) {
    for (let x = xa; x <= xb; x++) {
      if (insideQuad(quad, x + 0.5, y + 0.5)) {
        sum += prob[y * w + x]!;
        n++;
      }
    }
  }
  return n > 0 ? sum / n : 0;
}
