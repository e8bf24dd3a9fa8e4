/**
 * Pillow's `Image.resize` for 8-bit images, reproduced to the integer: the pixels
 * granite-docling (Idefics3) was trained on come from Pillow, and its processor resizes with
 * `Image.resize(size, LANCZOS)`, so a tile Folio feeds the model must be Pillow's tile.
 *
 * The convention followed (Pillow's src/libImaging/Resample.c):
 *  - separable: a horizontal pass into an 8-bit intermediate, then a vertical pass (a pass is
 *    skipped when that side keeps its size; nothing runs when both do, as `resize` returns a copy);
 *  - for output sample x the source centre is (x + 0.5) · scale, the filter's support is
 *    `support · max(1, scale)` and it is evaluated at (i − centre + 0.5) / max(1, scale) for
 *    the source pixels i in [trunc(centre − support + 0.5), trunc(centre + support + 0.5)),
 *    clipped to the image, then normalised to sum 1;
 *  - the weights become fixed point with PRECISION_BITS = 22 bits (rounded half away from zero),
 *    the sum starts at half a unit in a 32-bit integer, and the result is shifted back and
 *    clipped to 0–255.
 * NEAREST is Pillow's affine transform instead: source pixel floor((x + 0.5) · scale).
 *
 * Two kernels compute the same integers: WebAssembly SIMD (pilResample.wat, four 32-bit lanes
 * per multiply; the preprocessing path) and plain TypeScript over typed arrays (where
 * WebAssembly SIMD is missing, and `pilResize` for any channel count). The weight tables are
 * computed once per axis here and shared by both. Tests hold both to each other on random images
 * and every filter, and the WebAssembly path to transformers' Pillow tiles.
 */
import { PIL_RESAMPLE_WASM } from './pilResampleWasm';

/** Pillow's resample codes, as `preprocessor_config.json`'s `resample` holds them. */
export type PilFilter = 'nearest' | 'lanczos' | 'bilinear' | 'bicubic' | 'box' | 'hamming';

export const PIL_FILTER_BY_CODE: Record<number, PilFilter> = {
  0: 'nearest',
  1: 'lanczos',
  2: 'bilinear',
  3: 'bicubic',
  4: 'box',
  5: 'hamming',
};

const PRECISION_BITS = 32 - 8 - 2;
const ONE = 2 ** PRECISION_BITS;
const HALF = ONE / 2;

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

/** One axis's weight table. */
export interface PilCoeffs {
  ksize: number;
  /** Per output sample: first source index and number of taps. */
  bounds: Int32Array;
  /** outSize × ksize fixed-point weights. */
  kk: Int32Array;
}

/** Pillow's precompute_coeffs + normalize_coeffs_8bpc for one axis. */
export function pilCoeffs(inSize: number, outSize: number, filter: Exclude<PilFilter, 'nearest'>): PilCoeffs {
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

// ---------------------------------------------------------------------------------------------
// TypeScript kernels. Sums are 32-bit integers as in Pillow (`| 0` wraps like C's int); writing
// `sum >> 22` into a Uint8ClampedArray clips exactly as Pillow's clip8 (negative → 0, ≥ 256 → 255).

/**
 * Horizontal pass: `rows` rows of `rowStride` bytes, source pixels `sp` bytes apart, `c` channels
 * filtered (1–4), output pixels `dp` bytes apart (dp ≥ c), rows packed.
 */
function hpassJs(
  src: Uint8Array,
  sp: number,
  rowStride: number,
  rows: number,
  c: number,
  out: Uint8ClampedArray,
  dp: number,
  outW: number,
  co: PilCoeffs,
): void {
  const { ksize, bounds, kk } = co;
  for (let y = 0; y < rows; y++) {
    const row = y * rowStride;
    let o = y * outW * dp;
    for (let xx = 0; xx < outW; xx++, o += dp) {
      const n = bounds[xx * 2 + 1];
      const kb = xx * ksize;
      const p0 = row + bounds[xx * 2] * sp;
      for (let ch = 0; ch < c; ch++) {
        let s = HALF;
        for (let t = 0, p = p0 + ch; t < n; t++, p += sp) s = (s + src[p] * kk[kb + t]) | 0;
        out[o + ch] = s >> PRECISION_BITS;
      }
    }
  }
}

/** Vertical pass over rows of `stride` bytes, each byte on its own; output rows `stride` bytes. */
function vpassJs(src: Uint8Array, stride: number, out: Uint8ClampedArray, outH: number, co: PilCoeffs): void {
  const { ksize, bounds, kk } = co;
  const acc = new Int32Array(stride);
  for (let yy = 0; yy < outH; yy++) {
    const ymin = bounds[yy * 2];
    const n = bounds[yy * 2 + 1];
    const kb = yy * ksize;
    acc.fill(HALF);
    // Row by row: memory is read in order; integer sums do not depend on the order.
    for (let t = 0; t < n; t++) {
      const k = kk[kb + t];
      const r = (ymin + t) * stride;
      for (let i = 0; i < stride; i++) acc[i] = (acc[i] + src[r + i] * k) | 0;
    }
    const o = yy * stride;
    for (let i = 0; i < stride; i++) out[o + i] = acc[i] >> PRECISION_BITS;
  }
}

function nearestJs(src: Uint8Array, w: number, h: number, sp: number, c: number, outW: number, outH: number) {
  const out = new Uint8Array(outW * outH * sp);
  const sx = w / outW;
  const sy = h / outH;
  const xs = new Int32Array(outW);
  for (let x = 0; x < outW; x++) xs[x] = Math.min(w - 1, Math.floor((x + 0.5) * sx)) * sp;
  for (let y = 0; y < outH; y++) {
    const row = Math.min(h - 1, Math.floor((y + 0.5) * sy)) * w * sp;
    let o = y * outW * sp;
    for (let x = 0; x < outW; x++, o += sp) for (let ch = 0; ch < c; ch++) out[o + ch] = src[row + xs[x] + ch];
  }
  return out;
}

/** `Image.resize((outW, outH), filter)` of an interleaved 8-bit image with `c` channels (1–4). */
export function pilResize(
  src: Uint8Array,
  w: number,
  h: number,
  c: number,
  outW: number,
  outH: number,
  filter: PilFilter,
): Uint8Array {
  if (src.length !== w * h * c) throw new Error(`pilResize: ${src.length} bytes for ${w}×${h}×${c}`);
  if (c < 1 || c > 4) throw new Error(`pilResize: ${c} channels (1–4 supported)`);
  if (outW === w && outH === h) return src.slice();
  if (filter === 'nearest') return nearestJs(src, w, h, c, c, outW, outH);
  let img = src;
  if (outW !== w) {
    const out = new Uint8ClampedArray(outW * h * c);
    hpassJs(img, c, w * c, h, c, out, c, outW, pilCoeffs(w, outW, filter));
    img = new Uint8Array(out.buffer);
  }
  if (outH !== h) {
    const out = new Uint8ClampedArray(outW * outH * c);
    vpassJs(img, outW * c, out, outH, pilCoeffs(h, outH, filter));
    img = new Uint8Array(out.buffer);
  }
  return img;
}

// ---------------------------------------------------------------------------------------------
// Chains of resizes on RGB images (the preprocessing path).

/** An 8-bit RGB image: pixels `pix` bytes apart (3, or 4 with an unused byte), rows packed. */
export interface RgbImage {
  data: Uint8Array;
  width: number;
  height: number;
  pix: 3 | 4;
}

export type ResampleKernel = 'wasm' | 'js';

interface WasmKernels {
  memory: WebAssembly.Memory;
  hpass(
    src: number,
    srcPix: number,
    rowStride: number,
    rows: number,
    dst: number,
    outW: number,
    bounds: number,
    kk: number,
    ksize: number,
  ): void;
  vpass(src: number, stride: number, dst: number, outH: number, bounds: number, kk: number, ksize: number): void;
  planes(src: number, pix: number, rowStride: number, T: number, dst: number, lut: number): void;
}

/** This thread's module instance; undefined until first use, null where WebAssembly SIMD is missing. */
let wasm: WasmKernels | null | undefined;
/** A memory grown past this for an unusually large image is dropped after the call. */
const KEEP_MEMORY_BYTES = 256 * 2 ** 20;

function wasmKernels(): WasmKernels | null {
  if (wasm !== undefined) return wasm;
  try {
    const module = new WebAssembly.Module(Buffer.from(PIL_RESAMPLE_WASM, 'base64'));
    wasm = new WebAssembly.Instance(module, {}).exports as unknown as WasmKernels;
  } catch {
    // A runtime without WebAssembly SIMD: the TypeScript kernels give the same integers.
    wasm = null;
  }
  return wasm;
}

/** The kernel `pilResizeChain` uses by default on this runtime. */
export function defaultResampleKernel(): ResampleKernel {
  return wasmKernels() ? 'wasm' : 'js';
}

interface Step {
  width: number;
  height: number;
  h?: PilCoeffs;
  v?: PilCoeffs;
}

function planSteps(src: RgbImage, sizes: { width: number; height: number }[], filter: PilFilter): Step[] {
  let w = src.width;
  let h = src.height;
  return sizes.map(({ width, height }) => {
    const step: Step = { width, height };
    if (filter !== 'nearest') {
      if (width !== w) step.h = pilCoeffs(w, width, filter);
      if (height !== h) step.v = pilCoeffs(h, height, filter);
    }
    w = width;
    h = height;
    return step;
  });
}

/**
 * Resizes `src` to each of `sizes` in turn, each step from the previous step's 8-bit result, as
 * successive `Image.resize` calls do; returns every step's image. The red, green and blue
 * values equal Pillow's; a 4th byte per pixel, when present, is not a colour. With the
 * WebAssembly kernel the images are views of this thread's module memory, valid until the
 * next call on this thread: read (or copy) them before calling again.
 */
export function pilResizeChain(
  src: RgbImage,
  sizes: { width: number; height: number }[],
  filter: PilFilter,
  kernel: ResampleKernel = defaultResampleKernel(),
): RgbImage[] {
  if (src.data.length < src.width * src.height * src.pix)
    throw new Error(`pilResizeChain: ${src.data.length} bytes for ${src.width}×${src.height}×${src.pix}`);
  const steps = planSteps(src, sizes, filter);
  if (filter === 'nearest' || kernel === 'js') return chainJs(src, steps, filter);
  const k = wasmKernels();
  if (!k) return chainJs(src, steps, filter);
  try {
    return chainWasm(k, src, steps).images;
  } catch (e) {
    if (e instanceof RangeError) return chainJs(src, steps, filter);
    throw e;
  }
}

/** A tile to cut: from `image` (an index into the chain's steps), top-left corner (x0, y0). */
export interface TileWindow {
  image: number;
  x0: number;
  y0: number;
}

/**
 * `pilResizeChain`, then T × T tiles cut from its images as float32 planes, channels first:
 * each byte through its channel's table (`lut`: 3 × 256 values, red, green, blue). Returns
 * [tiles, 3, T, T]. The tiles are written inside the WebAssembly module's memory, so only the
 * result leaves it. `out`, when given, receives them (every value of it is written: a recycled
 * buffer's old values never show through); else a new array.
 */
export function pilResizeTiles(
  src: RgbImage,
  sizes: { width: number; height: number }[],
  filter: PilFilter,
  tiles: TileWindow[],
  T: number,
  lut: Float32Array,
  kernel: ResampleKernel = defaultResampleKernel(),
  out: Float32Array = new Float32Array(tiles.length * 3 * T * T),
): Float32Array {
  if (lut.length !== 768) throw new Error(`pilResizeTiles: a table of ${lut.length} values, not 3 × 256`);
  const TT = T * T;
  if (out.length !== tiles.length * 3 * TT)
    throw new Error(`pilResizeTiles: an output of ${out.length} values for ${tiles.length} tiles of ${T}`);
  const steps = planSteps(src, sizes, filter);
  let k = filter === 'nearest' || kernel === 'js' ? null : wasmKernels();
  let placed: ReturnType<typeof chainWasm> | undefined;
  try {
    placed = k ? chainWasm(k, src, steps, 3 * TT * 4 + lut.byteLength) : undefined;
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    k = null; // the module's memory could not grow: the TypeScript kernels
  }
  const check = (img: RgbImage, w: TileWindow) => {
    if (w.x0 < 0 || w.y0 < 0 || w.x0 + T > img.width || w.y0 + T > img.height)
      throw new Error(`pilResizeTiles: a ${T} tile at ${w.x0},${w.y0} outside ${img.width}×${img.height}`);
  };
  if (!k || !placed) {
    const images = chainJs(src, steps, filter);
    const [lr, lg, lb] = [lut.subarray(0, 256), lut.subarray(256, 512), lut.subarray(512)];
    tiles.forEach((w, i) => {
      const img = images[w.image];
      check(img, w);
      const { data, width, pix } = img;
      const base = i * 3 * TT;
      for (let y = 0; y < T; y++) {
        let p = ((w.y0 + y) * width + w.x0) * pix;
        const o = base + y * T;
        const end = o + T;
        for (let j = o; j < end; j++, p += pix) {
          out[j] = lr[data[p]];
          out[j + TT] = lg[data[p + 1]];
          out[j + 2 * TT] = lb[data[p + 2]];
        }
      }
    });
    return out;
  }
  // One tile's planes at a time in a scratch area after the images, then copied out.
  const { images, offsets, extra } = placed;
  const buf = k.memory.buffer;
  const lutAt = extra + 3 * TT * 4;
  new Float32Array(buf, lutAt, 768).set(lut);
  const scratch = new Float32Array(buf, extra, 3 * TT);
  tiles.forEach((w, i) => {
    const img = images[w.image];
    check(img, w);
    const rowStride = img.width * img.pix;
    k.planes(offsets[w.image] + w.y0 * rowStride + w.x0 * img.pix, img.pix, rowStride, T, extra, lutAt);
    out.set(scratch, i * 3 * TT);
  });
  return out;
}

function chainJs(src: RgbImage, steps: Step[], filter: PilFilter): RgbImage[] {
  const out: RgbImage[] = [];
  let img = src;
  for (const s of steps) {
    if (filter === 'nearest') {
      if (s.width !== img.width || s.height !== img.height)
        img = {
          data: nearestJs(img.data, img.width, img.height, img.pix, 3, s.width, s.height),
          width: s.width,
          height: s.height,
          pix: img.pix,
        };
    } else {
      if (s.h) {
        const o = new Uint8ClampedArray(s.width * img.height * 4);
        hpassJs(img.data, img.pix, img.width * img.pix, img.height, 3, o, 4, s.width, s.h);
        img = { data: new Uint8Array(o.buffer), width: s.width, height: img.height, pix: 4 };
      }
      if (s.v) {
        const stride = img.width * img.pix;
        const o = new Uint8ClampedArray(stride * s.height);
        vpassJs(img.data, stride, o, s.height, s.v);
        img = { data: new Uint8Array(o.buffer), width: img.width, height: s.height, pix: img.pix };
      }
    }
    out.push(img);
  }
  return out;
}

/** Places the whole chain in module memory at once (growing it once), then runs the passes. */
function chainWasm(
  k: WasmKernels,
  src: RgbImage,
  steps: Step[],
  extraBytes = 0,
): { images: RgbImage[]; offsets: number[]; extra: number } {
  // Layout: source, then per step its coefficient tables and images; every block 16-byte
  // aligned with 16 bytes of slack (see pilResample.wat).
  let top = 0;
  const place = (bytes: number) => {
    const at = top;
    top += Math.ceil((bytes + 16) / 16) * 16;
    return at;
  };
  const srcBytes = src.width * src.height * src.pix;
  const srcAt = place(srcBytes);
  type Placed = { at: number; width: number; height: number; pix: 3 | 4 };
  const tables: { co: PilCoeffs; bounds: number; kk: number }[] = [];
  const table = (co: PilCoeffs) => {
    const t = { co, bounds: place(co.bounds.byteLength), kk: place(co.kk.byteLength) };
    tables.push(t);
    return t;
  };
  const plan: { h?: { t: ReturnType<typeof table>; out: Placed }; v?: { t: ReturnType<typeof table>; out: Placed } }[] =
    [];
  let cur: Placed = { at: srcAt, width: src.width, height: src.height, pix: src.pix };
  const results: Placed[] = [];
  for (const s of steps) {
    const p: (typeof plan)[number] = {};
    if (s.h) {
      const out: Placed = { at: place(s.width * cur.height * 4), width: s.width, height: cur.height, pix: 4 };
      p.h = { t: table(s.h), out };
      cur = out;
    }
    if (s.v) {
      const out: Placed = { at: 0, width: cur.width, height: s.height, pix: cur.pix };
      out.at = place(cur.width * cur.pix * s.height);
      p.v = { t: table(s.v), out };
      cur = out;
    }
    plan.push(p);
    results.push(cur);
  }
  const extra = place(extraBytes);
  const need = top - k.memory.buffer.byteLength;
  // A memory that cannot grow (an image too large for 32-bit addresses, or no memory left)
  // throws a RangeError here: the callers then run the TypeScript kernels.
  if (need > 0) k.memory.grow(Math.ceil(need / 65536));
  const buf = k.memory.buffer;
  new Uint8Array(buf, srcAt, srcBytes).set(src.data.subarray(0, srcBytes));
  for (const t of tables) {
    new Int32Array(buf, t.bounds, t.co.bounds.length).set(t.co.bounds);
    new Int32Array(buf, t.kk, t.co.kk.length).set(t.co.kk);
  }
  let prev: Placed = { at: srcAt, width: src.width, height: src.height, pix: src.pix };
  for (const p of plan) {
    if (p.h) {
      const { t, out } = p.h;
      k.hpass(prev.at, prev.pix, prev.width * prev.pix, prev.height, out.at, out.width, t.bounds, t.kk, t.co.ksize);
      prev = out;
    }
    if (p.v) {
      const { t, out } = p.v;
      k.vpass(prev.at, prev.width * prev.pix, out.at, out.height, t.bounds, t.kk, t.co.ksize);
      prev = out;
    }
  }
  const images = results.map((r) => ({
    data: new Uint8Array(buf, r.at, r.width * r.height * r.pix),
    width: r.width,
    height: r.height,
    pix: r.pix,
  }));
  // An unusually large image leaves a large memory behind: let it go with this instance (the
  // views above keep it alive until the caller is done with them).
  if (buf.byteLength > KEEP_MEMORY_BYTES) wasm = undefined;
  return { images, offsets: results.map((r) => r.at), extra };
}
