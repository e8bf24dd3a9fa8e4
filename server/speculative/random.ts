/**
 * A small seeded PRNG (mulberry32) so sampling runs and randomized tests are reproducible;
 * Math.random cannot be seeded.
 */
export { mulberry32 } from '../util/random';

/** A 32-bit hash of a list of integers (FNV-1a over their bytes), used by the toy model. */
export function hashInts(values: readonly number[], seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (const v of values) {
    let x = v | 0;
    for (let b = 0; b < 4; b++) {
      h ^= x & 0xff;
      h = Math.imul(h, 0x01000193) >>> 0;
      x >>>= 8;
    }
  }
  // Final avalanche so nearby inputs give unrelated outputs.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}
