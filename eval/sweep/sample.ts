/** A fixed, seeded sample of files: the same files on every machine and every run. */

import { mulberry32 } from '../../server/util/random';

/** mulberry32: a small, well-mixed 32-bit generator. */
export const seededRandom = mulberry32;

/** `n` items chosen by a seeded Fisher–Yates shuffle of the sorted input. */
export function seededSample<T>(items: T[], n: number, seed: number, key: (x: T) => string): T[] {
  const sorted = [...items].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  const rnd = seededRandom(seed);
  for (let i = sorted.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [sorted[i], sorted[j]] = [sorted[j], sorted[i]];
  }
  return sorted.slice(0, Math.min(n, sorted.length));
}
