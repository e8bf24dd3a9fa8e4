/**
 * Pixel work for OCR on plain typed arrays: flattening RGBA onto white, resampling for the
 * detector, and warping a rotated text rectangle into a recognizer input. Everything writes
 * straight into the model's NCHW float tensor in BGR channel order (PaddleOCR was trained on
 * OpenCV's BGR images).
 */
import type { Point, RgbaImage } from './types';

/**
 * Input image as three byte planes (R, G, B), alpha composited over white. Bytes, not floats:
 * a page capped at 25 MP by the renderer then costs 75 MB here instead of 300 MB.
 */
export interface RgbPlanes {
  width: number;
  height: number;
  r: Uint8ClampedArray;
  g: Uint8ClampedArray;
  b: Uint8ClampedArray;
}

export function checkImage(img: RgbaImage): void {
  const { width, height, data } = img;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width <= 0 || height <= 0) {
    throw new Error(`OCR input has an invalid size ${width}×${height}`);
  }
  if (!data || data.length < width * height * 4) {
    throw new Error(
      `OCR input is too short: ${data?.length ?? 0} bytes for ${width}×${height} RGBA (needs ${width * height * 4})`,
    );
  }
}

export function toPlanes(img: RgbaImage): RgbPlanes {
  const n = img.width * img.height;
  const r = new Uint8ClampedArray(n);
  const g = new Uint8ClampedArray(n);
  const b = new Uint8ClampedArray(n);
  const d = img.data;
  for (let i = 0, j = 0; i < n; i++, j += 4) {
    const a = d[j + 3];
    if (a === 255) {
      r[i] = d[j];
      g[i] = d[j + 1];
      b[i] = d[j + 2];
    } else {
      // Transparent canvas areas are paper, not black ink.
      const k = a / 255;
      const w = 255 * (1 - k);
      r[i] = d[j] * k + w;
      g[i] = d[j + 1] * k + w;
      b[i] = d[j + 2] * k + w;
    }
  }
  return { width: img.width, height: img.height, r, g, b };
}

/**
 * Resampling weights for one axis (a triangle filter widened by the shrink factor, so
 * downscaling averages instead of skipping thin strokes).
 */
function axisWeights(
  src: number,
  dst: number,
): { start: Int32Array; count: Int32Array; w: Float32Array; taps: number } {
  const scale = src / dst;
  const support = Math.max(1, scale);
  const taps = Math.ceil(support) * 2 + 1;
  const start = new Int32Array(dst);
  const count = new Int32Array(dst);
  const w = new Float32Array(dst * taps);
  for (let i = 0; i < dst; i++) {
    const center = (i + 0.5) * scale;
    const lo = Math.max(0, Math.floor(center - support));
    const hi = Math.min(src - 1, Math.ceil(center + support));
    let sum = 0;
    let c = 0;
    for (let s = lo; s <= hi && c < taps; s++, c++) {
      const v = Math.max(0, 1 - Math.abs(s + 0.5 - center) / support);
      w[i * taps + c] = v;
      sum += v;
    }
    start[i] = lo;
    count[i] = c;
    if (sum > 0) for (let k = 0; k < c; k++) w[i * taps + k] /= sum;
  }
  return { start, count, w, taps };
}

function resamplePlane(
  src: Uint8ClampedArray,
  sw: number,
  sh: number,
  dw: number,
  dh: number,
  wx: ReturnType<typeof axisWeights>,
  wy: ReturnType<typeof axisWeights>,
): Float32Array {
  const tmp = new Float32Array(dw * sh);
  for (let y = 0; y < sh; y++) {
    const row = y * sw;
    for (let x = 0; x < dw; x++) {
      const s = wx.start[x];
      const base = x * wx.taps;
      let acc = 0;
      for (let k = 0; k < wx.count[x]; k++) acc += src[row + s + k] * wx.w[base + k];
      tmp[y * dw + x] = acc;
    }
  }
  const out = new Float32Array(dw * dh);
  for (let y = 0; y < dh; y++) {
    const s = wy.start[y];
    const base = y * wy.taps;
    const n = wy.count[y];
    for (let x = 0; x < dw; x++) {
      let acc = 0;
      for (let k = 0; k < n; k++) acc += tmp[(s + k) * dw + x] * wy.w[base + k];
      out[y * dw + x] = acc;
    }
  }
  return out;
}

/**
 * The detector's input: resized to `dw × dh`, BGR, ImageNet mean/std, NCHW with N = 1.
 */
export function detectorTensor(p: RgbPlanes, dw: number, dh: number): Float32Array {
  const wx = axisWeights(p.width, dw);
  const wy = axisWeights(p.height, dh);
  const n = dw * dh;
  const out = new Float32Array(3 * n);
  // Channel order B, G, R with the ImageNet statistics in the order PaddleOCR applies them.
  const planes = [p.b, p.g, p.r];
  const mean = [0.485, 0.456, 0.406];
  const std = [0.229, 0.224, 0.225];
  for (let c = 0; c < 3; c++) {
    const res = resamplePlane(planes[c], p.width, p.height, dw, dh, wx, wy);
    const m = mean[c];
    const s = std[c];
    const off = c * n;
    for (let i = 0; i < n; i++) out[off + i] = (res[i] / 255 - m) / s;
  }
  return out;
}

/**
 * Samples the quad (top-left, top-right, bottom-right, bottom-left as read) into an
 * `outW × outH` patch of a batch tensor whose rows are `stride` wide, normalized to
 * (x/255 − 0.5)/0.5 in BGR order. Uses the parallelogram spanned at the top-left corner (our
 * quads are rectangles), and averages a few samples per pixel when the text is shrunk.
 */
export function warpInto(
  p: RgbPlanes,
  quad: Point[],
  outW: number,
  outH: number,
  dst: Float32Array,
  batchIndex: number,
  stride: number,
): void {
  const [tl, tr, , bl] = quad;
  const ax = (tr[0] - tl[0]) / outW;
  const ay = (tr[1] - tl[1]) / outW;
  const bx = (bl[0] - tl[0]) / outH;
  const by = (bl[1] - tl[1]) / outH;
  const shrink = Math.max(Math.hypot(ax, ay), Math.hypot(bx, by));
  const ss = Math.min(3, Math.max(1, Math.round(shrink)));
  const plane = outH * stride;
  const base = batchIndex * 3 * plane;
  const { width: W, height: H, r, g, b } = p;
  const inv = 1 / (ss * ss);
  for (let j = 0; j < outH; j++) {
    for (let i = 0; i < outW; i++) {
      let sr = 0,
        sg = 0,
        sb = 0;
      for (let sj = 0; sj < ss; sj++) {
        const v = j + (sj + 0.5) / ss;
        for (let si = 0; si < ss; si++) {
          const u = i + (si + 0.5) / ss;
          // Continuous source position; pixel centres sit at +0.5.
          const x = tl[0] + u * ax + v * bx - 0.5;
          const y = tl[1] + u * ay + v * by - 0.5;
          const x0 = Math.floor(x);
          const y0 = Math.floor(y);
          const fx = x - x0;
          const fy = y - y0;
          const xa = x0 < 0 ? 0 : x0 >= W ? W - 1 : x0;
          const xb = x0 + 1 < 0 ? 0 : x0 + 1 >= W ? W - 1 : x0 + 1;
          const ya = y0 < 0 ? 0 : y0 >= H ? H - 1 : y0;
          const yb = y0 + 1 < 0 ? 0 : y0 + 1 >= H ? H - 1 : y0 + 1;
          const i00 = ya * W + xa,
            i01 = ya * W + xb,
            i10 = yb * W + xa,
            i11 = yb * W + xb;
          const w00 = (1 - fx) * (1 - fy),
            w01 = fx * (1 - fy),
            w10 = (1 - fx) * fy,
            w11 = fx * fy;
          sr += r[i00] * w00 + r[i01] * w01 + r[i10] * w10 + r[i11] * w11;
          sg += g[i00] * w00 + g[i01] * w01 + g[i10] * w10 + g[i11] * w11;
          sb += b[i00] * w00 + b[i01] * w01 + b[i10] * w10 + b[i11] * w11;
        }
      }
      const o = base + j * stride + i;
      dst[o] = (sb * inv) / 127.5 - 1;
      dst[o + plane] = (sg * inv) / 127.5 - 1;
      dst[o + 2 * plane] = (sr * inv) / 127.5 - 1;
    }
  }
}

/**
 * The planes turned counter-clockwise by `quarters` × 90° (turning a sideways page upright
 * before detection: the detector scores vertical lines lower and drops some).
 */
export function turnPlanes(p: RgbPlanes, quarters: 0 | 1 | 2 | 3): RgbPlanes {
  if (quarters === 0) return p;
  const { width: W, height: H } = p;
  const nw = quarters === 2 ? W : H;
  const nh = quarters === 2 ? H : W;
  const turn = (src: Uint8ClampedArray): Uint8ClampedArray => {
    const dst = new Uint8ClampedArray(W * H);
    for (let y = 0; y < H; y++) {
      const row = y * W;
      for (let x = 0; x < W; x++) {
        // Destination pixel of source (x, y) under a counter-clockwise turn.
        let nx: number, ny: number;
        if (quarters === 1) [nx, ny] = [y, W - 1 - x];
        else if (quarters === 2) [nx, ny] = [W - 1 - x, H - 1 - y];
        else [nx, ny] = [H - 1 - y, x];
        dst[ny * nw + nx] = src[row + x];
      }
    }
    return dst;
  };
  return { width: nw, height: nh, r: turn(p.r), g: turn(p.g), b: turn(p.b) };
}
