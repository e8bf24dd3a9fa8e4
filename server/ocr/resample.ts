/**
 * Separable resampling tables. Downscaling averages every source pixel an output pixel covers
 * (area filter: a 200-dpi page shrunk 2.4× for detection keeps thin strokes); upscaling is
 * bilinear.
 */

export interface AxisTable {
  /** First source index for each output index. */
  start: Int32Array;
  /** Number of source indices for each output index. */
  count: Int32Array;
  /** Weights, `maxTaps` per output index, summing to 1. */
  weights: Float32Array;
  maxTaps: number;
}

export function axisTable(srcLen: number, dstLen: number): AxisTable {
  const s = srcLen / dstLen;
  const maxTaps = s > 1 ? Math.ceil(s) + 1 : 2;
  const start = new Int32Array(dstLen);
  const count = new Int32Array(dstLen);
  const weights = new Float32Array(dstLen * maxTaps);
  for (let i = 0; i < dstLen; i++) {
    if (s > 1) {
      const a = i * s;
      const b = Math.min(srcLen, (i + 1) * s);
      const first = Math.floor(a);
      const last = Math.min(srcLen - 1, Math.ceil(b) - 1);
      start[i] = first;
      count[i] = last - first + 1;
      for (let k = first; k <= last; k++) {
        const cover = Math.min(b, k + 1) - Math.max(a, k);
        weights[i * maxTaps + (k - first)] = cover / s;
      }
    } else {
      const c = Math.min(srcLen - 1, Math.max(0, (i + 0.5) * s - 0.5));
      const k = Math.min(srcLen - 2, Math.floor(c));
      if (srcLen === 1) {
        start[i] = 0;
        count[i] = 1;
        weights[i * maxTaps] = 1;
        continue;
      }
      const f = c - k;
      start[i] = k;
      count[i] = 2;
      weights[i * maxTaps] = 1 - f;
      weights[i * maxTaps + 1] = f;
    }
  }
  return { start, count, weights, maxTaps };
}

/**
 * Resizes an RGBA raster to `dw` × `dh` and writes it as a planar B, G, R float tensor
 * [3, dh, dw], mapping each 0–255 value v to (v/255 − mean[c]) / std[c] (c in B, G, R order).
 */
export function resizeToPlanarBgr(
  rgba: Uint8ClampedArray,
  width: number,
  height: number,
  dw: number,
  dh: number,
  meanBgr: readonly [number, number, number],
  stdBgr: readonly [number, number, number],
): Float32Array {
  const tx = axisTable(width, dw);
  const ty = axisTable(height, dh);
  // Horizontal pass: rows of the source → dw columns, 3 channels, still 0–255.
  const mid = new Float32Array(height * dw * 3);
  for (let y = 0; y < height; y++) {
    const row = y * width * 4;
    const out = y * dw * 3;
    for (let i = 0; i < dw; i++) {
      let b = 0, g = 0, r = 0;
      const s0 = tx.start[i]!;
      const n = tx.count[i]!;
      const wo = i * tx.maxTaps;
      for (let k = 0; k < n; k++) {
        const w = tx.weights[wo + k]!;
        const p = row + (s0 + k) * 4;
        r += rgba[p]! * w;
        g += rgba[p + 1]! * w;
        b += rgba[p + 2]! * w;
      }
      mid[out + i * 3] = b;
      mid[out + i * 3 + 1] = g;
      mid[out + i * 3 + 2] = r;
    }
  }
  const plane = dw * dh;
  const tensor = new Float32Array(3 * plane);
  const scale = [1 / (255 * stdBgr[0]), 1 / (255 * stdBgr[1]), 1 / (255 * stdBgr[2])];
  const offset = [meanBgr[0] / stdBgr[0], meanBgr[1] / stdBgr[1], meanBgr[2] / stdBgr[2]];
  const acc = new Float32Array(dw * 3);
  for (let j = 0; j < dh; j++) {
    acc.fill(0);
    const s0 = ty.start[j]!;
    const n = ty.count[j]!;
    for (let k = 0; k < n; k++) {
      const w = ty.weights[j * ty.maxTaps + k]!;
      const src = (s0 + k) * dw * 3;
      for (let q = 0; q < dw * 3; q++) acc[q] += mid[src + q]! * w;
    }
    for (let i = 0; i < dw; i++) {
      for (let c = 0; c < 3; c++) tensor[c * plane + j * dw + i] = acc[i * 3 + c]! * scale[c]! - offset[c]!;
    }
  }
  return tensor;
}
