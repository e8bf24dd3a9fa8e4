/**
 * Fuzzy one-to-one matching of two lists of short strings (headings, list items) and the F1
 * that follows. Pairs are taken greedily from the most similar down, which is order-free and
 * close to optimal for the mostly distinct strings compared here.
 */
import { normalizedEditDistance } from './levenshtein';
import { matchKey } from './normalize';

export interface Prf {
  precision: number;
  recall: number;
  f1: number;
  /** Sizes behind the figures, so means over files can be weighted or checked. */
  gt: number;
  pred: number;
  matched: number;
}

export function prf(matched: number, gt: number, pred: number): Prf {
  const precision = pred === 0 ? (gt === 0 ? 1 : 0) : matched / pred;
  const recall = gt === 0 ? (pred === 0 ? 1 : 0) : matched / gt;
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { precision, recall, f1, gt, pred, matched };
}

export interface Item {
  text: string;
  /** Heading level or list depth; compared only when `sameLevel` is asked for. */
  level?: number;
}

/** Similarity of two strings after `matchKey`: 1 − normalized edit distance. */
export function similarity(a: string, b: string): number {
  return 1 - normalizedEditDistance(matchKey(a), matchKey(b));
}

/**
 * Match `pred` to `gt` one-to-one with similarity ≥ `threshold` (and equal level when
 * `sameLevel`), return precision/recall/F1.
 */
export function fuzzyF1(gt: Item[], pred: Item[], opts: { threshold?: number; sameLevel?: boolean } = {}): Prf {
  const threshold = opts.threshold ?? 0.8;
  const gk = gt.map((g) => matchKey(g.text));
  const pk = pred.map((p) => matchKey(p.text));
  const pairs: [number, number, number][] = [];
  for (let i = 0; i < gt.length; i++) {
    for (let j = 0; j < pred.length; j++) {
      if (opts.sameLevel && gt[i].level !== pred[j].level) continue;
      // Cheap bound first: strings whose lengths differ too much cannot reach the threshold.
      const la = gk[i].length;
      const lb = pk[j].length;
      if (Math.min(la, lb) < threshold * Math.max(la, lb)) continue;
      const s = 1 - normalizedEditDistance(gk[i], pk[j]);
      if (s >= threshold) pairs.push([s, i, j]);
    }
  }
  pairs.sort((x, y) => y[0] - x[0] || x[1] - y[1] || x[2] - y[2]);
  const usedG = new Set<number>();
  const usedP = new Set<number>();
  for (const [, i, j] of pairs) {
    if (usedG.has(i) || usedP.has(j)) continue;
    usedG.add(i);
    usedP.add(j);
  }
  return prf(usedG.size, gt.length, pred.length);
}
