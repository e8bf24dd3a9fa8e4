/**
 * Rotated crops: samples a text line's rectangle straight out of the original RGBA image into a
 * recognizer/classifier tensor, so a skewed or 90°-turned line comes out level without rotating
 * the whole page. Bilinear sampling with border replication; when the crop shrinks the source,
 * several samples per output pixel are averaged so thin strokes survive.
 */
import type { Point, RgbaImage } from './types';

/** Where a crop comes from: origin (top-left as the text reads) and the two side vectors. */
export interface CropFrame {
  origin: Point;
  /** Along the text, full length. */
  along: Point;
  /** Across the text (top to bottom), full height. */
  across: Point;
}

export function frameFromCorners(tl: Point, tr: Point, bl: Point): CropFrame {
  return { origin: tl, along: [tr[0] - tl[0], tr[1] - tl[1]], across: [bl[0] - tl[0], bl[1] - tl[1]] };
}

export function frameLength(f: CropFrame): number {
  return Math.hypot(f.along[0], f.along[1]);
}

export function frameHeight(f: CropFrame): number {
  return Math.hypot(f.across[0], f.across[1]);
}

/**
 * Writes the crop as planar B, G, R values (v/255 − 0.5)/0.5 into `dst` (a [3, outH, stride]
 * block starting at `offset`), filling columns 0..outW−1; the caller leaves the rest at 0 (the
 * recognizer's padding value).
 */
export function sampleCrop(
  img: RgbaImage,
  f: CropFrame,
  outW: number,
  outH: number,
  dst: Float32Array,
  offset: number,
  stride: number,
): void {
  const { data, width, height } = img;
  const ax = f.along[0] / outW, ay = f.along[1] / outW;
  const cx = f.across[0] / outH, cy = f.across[1] / outH;
  // Source pixels per output pixel along each axis → supersampling factor (capped).
  const nu = Math.min(4, Math.max(1, Math.ceil(Math.hypot(ax, ay))));
  const nv = Math.min(4, Math.max(1, Math.ceil(Math.hypot(cx, cy))));
  const inv = 1 / (nu * nv);
  const plane = outH * stride;
  const maxX = width - 1, maxY = height - 1;
  for (let v = 0; v < outH; v++) {
    for (let u = 0; u < outW; u++) {
      let r = 0, g = 0, b = 0;
      for (let sv = 0; sv < nv; sv++) {
        const fv = v + (sv + 0.5) / nv;
        for (let su = 0; su < nu; su++) {
          const fu = u + (su + 0.5) / nu;
          // Continuous source coordinate, then to pixel-centre indices.
          let x = f.origin[0] + fu * ax + fv * cx - 0.5;
          let y = f.origin[1] + fu * ay + fv * cy - 0.5;
          if (x < 0) x = 0;
          else if (x > maxX) x = maxX;
          if (y < 0) y = 0;
          else if (y > maxY) y = maxY;
          const x0 = Math.floor(x), y0 = Math.floor(y);
          const x1 = x0 < maxX ? x0 + 1 : x0, y1 = y0 < maxY ? y0 + 1 : y0;
          const fx = x - x0, fy = y - y0;
          const w00 = (1 - fx) * (1 - fy), w10 = fx * (1 - fy), w01 = (1 - fx) * fy, w11 = fx * fy;
          const p00 = (y0 * width + x0) * 4, p10 = (y0 * width + x1) * 4;
          const p01 = (y1 * width + x0) * 4, p11 = (y1 * width + x1) * 4;
          r += data[p00]! * w00 + data[p10]! * w10 + data[p01]! * w01 + data[p11]! * w11;
          g += data[p00 + 1]! * w00 + data[p10 + 1]! * w10 + data[p01 + 1]! * w01 + data[p11 + 1]! * w11;
          b += data[p00 + 2]! * w00 + data[p10 + 2]! * w10 + data[p01 + 2]! * w01 + data[p11 + 2]! * w11;
        }
      }
      const o = offset + v * stride + u;
      dst[o] = (b * inv) / 127.5 - 1;
      dst[o + plane] = (g * inv) / 127.5 - 1;
      dst[o + 2 * plane] = (r * inv) / 127.5 - 1;
    }
  }
}
