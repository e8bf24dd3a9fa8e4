/**
 * Seeded pseudo-random numbers (mulberry32: small and well mixed), shared by everything that
 * must be reproducible — randomized tests, the fuzzer's and sweep's samples, fixture weights,
 * sampling in speculative decoding. `Math.random` cannot be seeded.
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
