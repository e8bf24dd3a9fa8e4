/**
 * The baseline of `bench/preprocess.main.ts`: Folio's preprocessing as it was before issue 38
 * (server/vlm/preprocess.ts and pilResample.ts at commit 8a6f245), kept here verbatim in its
 * arithmetic so the benchmark measures old and new in the same run. Not used by the product.
 * Plain TypeScript, double-precision sums, one resize at a time with a new array per pass, the
 * image always decoded and flattened by sharp.
 */
import sharp from 'sharp';
import type { VlmConfig } from '../server/vlm/config';
import { tileGrid, type ImageInput, type PreprocessedImage } from '../server/vlm/preprocess';

type PilFilter = 'nearest' | 'lanczos' | 'bilinear' | 'bicubic' | 'box' | 'hamming';

const PRECISION_BITS = 32 - 8 - 2;
const ONE = 2 ** PRECISION_BITS;

function sinc(x: number): number {
  if (x === 0) return 1;
  const px = x * Math.PI;
  return Math.sin(px) / px;
}

const FILTERS: Record<Exclude<PilFilter, 'nearest'>, { support: number; fn: (x: number) => number }> = {
  box: { support: 0.5, fn: (x) => (x > -0.5 && x <= 0.5 ? 1 : 0) },
  bilinear: {
    support: 1,
    fn: (x) => {
      const a = Math.abs(x);
      return a < 1 ? 1 - a : 0;
    },
  },
  hamming: {
    support: 1,
    fn: (x) => {
      const a = Math.abs(x);
      if (a === 0) return 1;
      if (a >= 1) return 0;
      const px = a * Math.PI;
      return (Math.sin(px) / px) * (0.54 + 0.46 * Math.cos(px));
    },
  },
  bicubic: {
    support: 2,
    fn: (x) => {
      const a = -0.5;
      const t = Math.abs(x);
      if (t < 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
      if (t < 2) return (((t - 5) * t + 8) * t - 4) * a;
      return 0;
    },
  },
  lanczos: { support: 3, fn: (x) => (x >= -3 && x < 3 ? sinc(x) * sinc(x / 3) : 0) },
};

interface Coeffs {
  ksize: number;
  /** Per output sample: first source index and number of taps. */
  bounds: Int32Array;
  /** outSize × ksize fixed-point weights. */
  kk: Int32Array;
}

/** Pillow's precompute_coeffs + normalize_coeffs_8bpc for one axis. */
function coeffs(inSize: number, outSize: number, filter: Exclude<PilFilter, 'nearest'>): Coeffs {
  const { support: baseSupport, fn } = FILTERS[filter];
  const scale = inSize / outSize;
  const filterscale = Math.max(1, scale);
  const support = baseSupport * filterscale;
  const ksize = Math.ceil(support) * 2 + 1;
  const bounds = new Int32Array(outSize * 2);
  const kk = new Int32Array(outSize * ksize);
  const w = new Float64Array(ksize);
  const ss = 1 / filterscale;
  for (let xx = 0; xx < outSize; xx++) {
    const center = (xx + 0.5) * scale;
    const xmin = Math.max(0, Math.trunc(center - support + 0.5));
    const xmax = Math.min(inSize, Math.trunc(center + support + 0.5)) - xmin;
    let ww = 0;
    for (let x = 0; x < xmax; x++) {
      const v = fn((x + xmin - center + 0.5) * ss);
      w[x] = v;
      ww += v;
    }
    for (let x = 0; x < xmax; x++) {
      const k = ww !== 0 ? w[x] / ww : w[x];
      // C's (int) truncates toward zero after adding ±0.5: round half away from zero.
      kk[xx * ksize + x] = k < 0 ? Math.trunc(-0.5 + k * ONE) : Math.trunc(0.5 + k * ONE);
    }
    bounds[xx * 2] = xmin;
    bounds[xx * 2 + 1] = Math.max(0, xmax);
  }
  return { ksize, bounds, kk };
}

function clip8(v: number): number {
  if (v >= ONE * 256) return 255;
  if (v <= 0) return 0;
  return Math.floor(v / ONE);
}

/** Horizontal pass: every row, `c` interleaved channels. */
function horizontal(src: Uint8Array, w: number, h: number, c: number, outW: number, co: Coeffs): Uint8Array {
  const out = new Uint8Array(outW * h * c);
  const { ksize, bounds, kk } = co;
  const half = ONE / 2;
  for (let y = 0; y < h; y++) {
    const row = y * w * c;
    const orow = y * outW * c;
    for (let xx = 0; xx < outW; xx++) {
      const xmin = bounds[xx * 2];
      const n = bounds[xx * 2 + 1];
      const kb = xx * ksize;
      for (let ch = 0; ch < c; ch++) {
        let ss = half;
        let p = row + xmin * c + ch;
        for (let x = 0; x < n; x++, p += c) ss += src[p] * kk[kb + x];
        out[orow + xx * c + ch] = clip8(ss);
      }
    }
  }
  return out;
}

/** Vertical pass: every column, rows accumulated with one weight per output row. */
function vertical(src: Uint8Array, w: number, c: number, outH: number, co: Coeffs): Uint8Array {
  const stride = w * c;
  const out = new Uint8Array(stride * outH);
  const acc = new Float64Array(stride);
  const { ksize, bounds, kk } = co;
  const half = ONE / 2;
  for (let yy = 0; yy < outH; yy++) {
    const ymin = bounds[yy * 2];
    const n = bounds[yy * 2 + 1];
    const kb = yy * ksize;
    acc.fill(half);
    // Row-wise accumulation touches memory sequentially; the integer sums are exact in doubles,
    // so the order does not change the result.
    for (let y = 0; y < n; y++) {
      const k = kk[kb + y];
      const r = (ymin + y) * stride;
      for (let i = 0; i < stride; i++) acc[i] += src[r + i] * k;
    }
    const o = yy * stride;
    for (let i = 0; i < stride; i++) out[o + i] = clip8(acc[i]);
  }
  return out;
}

function nearest(src: Uint8Array, w: number, h: number, c: number, outW: number, outH: number): Uint8Array {
  const out = new Uint8Array(outW * outH * c);
  const sx = w / outW;
  const sy = h / outH;
  for (let y = 0; y < outH; y++) {
    const yi = Math.min(h - 1, Math.floor((y + 0.5) * sy));
    for (let x = 0; x < outW; x++) {
      const xi = Math.min(w - 1, Math.floor((x + 0.5) * sx));
      for (let ch = 0; ch < c; ch++) out[(y * outW + x) * c + ch] = src[(yi * w + xi) * c + ch];
    }
  }
  return out;
}

/** `Image.resize((outW, outH), filter)` of an interleaved 8-bit image with `c` channels. */
function pilResize(
  src: Uint8Array,
  w: number,
  h: number,
  c: number,
  outW: number,
  outH: number,
  filter: PilFilter,
): Uint8Array {
  if (src.length !== w * h * c) throw new Error(`pilResize: ${src.length} bytes for ${w}×${h}×${c}`);
  if (outW === w && outH === h) return src.slice();
  if (filter === 'nearest') return nearest(src, w, h, c, outW, outH);
  let img = src;
  if (outW !== w) img = horizontal(img, w, h, c, outW, coeffs(w, outW, filter));
  if (outH !== h) img = vertical(img, outW, c, outH, coeffs(h, outH, filter));
  return img;
}

async function openImage(image: ImageInput) {
  const s =
    'path' in image
      ? sharp(image.path)
      : sharp(Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength), {
          raw: { width: image.width, height: image.height, channels: image.channels ?? 4 },
        });
  const meta = 'path' in image ? await s.metadata() : { width: image.width, height: image.height };
  if (!meta.width || !meta.height) throw new Error('no size');
  return { pipeline: s.flatten({ background: '#ffffff' }).removeAlpha(), width: meta.width, height: meta.height };
}

const PIL_FILTER: Record<VlmConfig['preprocess']['kernel'], PilFilter> = {
  nearest: 'nearest',
  linear: 'bilinear',
  cubic: 'bicubic',
  lanczos3: 'lanczos',
  box: 'box',
  hamming: 'hamming',
};

/** The old `preprocessImage` (whole pages; crops are not benchmarked). */
export async function preprocessBaseline(image: ImageInput, pre: VlmConfig['preprocess']): Promise<PreprocessedImage> {
  const src = await openImage(image);
  const grid = tileGrid(src.width, src.height, pre);
  const T = pre.tileSize;
  const out = new Float32Array(grid.images * 3 * T * T);
  const lut = new Float32Array(3 * 256);
  for (let c = 0; c < 3; c++)
    for (let v = 0; v < 256; v++) lut[c * 256 + v] = (v * pre.rescale - pre.mean[c]) / pre.std[c];
  const TT = T * T;
  const norm = (rgb: Uint8Array, width: number, x0: number, y0: number, index: number) => {
    const base = index * 3 * TT;
    for (let y = 0; y < T; y++) {
      let src = ((y0 + y) * width + x0) * 3;
      const o = base + y * T;
      for (let x = 0; x < T; x++, src += 3) {
        out[o + x] = lut[rgb[src]];
        out[o + TT + x] = lut[256 + rgb[src + 1]];
        out[o + 2 * TT + x] = lut[512 + rgb[src + 2]];
      }
    }
  };
  const rgb = await src.pipeline.raw().toBuffer();
  const filter = PIL_FILTER[pre.kernel];
  const resized = pilResize(rgb, src.width, src.height, 3, grid.resized.width, grid.resized.height, filter);
  if (grid.rows === 0) {
    const { width, height } = pre.splitting ? grid.padded : { width: T, height: T };
    const one = pilResize(resized, grid.resized.width, grid.resized.height, 3, width, height, filter);
    norm(one, T, 0, 0, 0);
  } else {
    const { width, height } = grid.padded;
    const big = pilResize(resized, grid.resized.width, grid.resized.height, 3, width, height, filter);
    let i = 0;
    for (let r = 0; r < grid.rows; r++) for (let c = 0; c < grid.cols; c++) norm(big, width, c * T, r * T, i++);
    norm(pilResize(big, width, height, 3, T, T, filter), T, 0, 0, i);
  }
  return { grid, tileSize: T, pixelValues: out };
}
