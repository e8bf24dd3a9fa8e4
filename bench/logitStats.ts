/** Logit comparisons shared by the WebGPU divergence benches (verifyDivergence, webgpuPrefill). */

/** The largest absolute difference between two equally long vectors. */
export function maxAbs(a: Float32Array, b: Float32Array): number {
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i] - b[i]));
  return d;
}

/** The arg-max of a logit row and its margin over the runner-up (how near a tie the choice was). */
export function top2(v: Float32Array): { id: number; margin: number } {
  let a = -Infinity;
  let b = -Infinity;
  let id = 0;
  for (let i = 0; i < v.length; i++) {
    if (v[i] > a) {
      b = a;
      a = v[i];
      id = i;
    } else if (v[i] > b) b = v[i];
  }
  return { id, margin: a - b };
}
