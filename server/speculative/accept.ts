/**
 * Acceptance along the prefix tree after one verification pass.
 *
 * Greedy (temperature 0): at each node take the child the target likes best and accept it while
 * log p(child) − log p(argmax) ≥ log τ; τ = 1 accepts only the argmax itself, so the output is
 * token-for-token what plain autoregressive decoding writes. Then append the model's own next
 * token (the argmax where acceptance stopped).
 *
 * Sampling (temperature > 0): pipeline drafts are deterministic, so the draft distribution q is
 * one-hot on the drafted token. Tokenwise speculative sampling then accepts a child d with
 * probability min(1, p(d)/q(d)) = p(d) and on rejection resamples from norm(max(0, p − q)), which
 * is p with d removed. Over a set of children tried in turn, this is exactly "draw x ~ p; follow
 * the child equal to x, else x is the bonus token", which is what `sampleWalk` does: lossless by
 * construction, one random draw per accepted token.
 */
import type { PrefixTree, TreeNode } from './prefixTree';
import type { LogProbs } from './types';

export interface Acceptance {
  /** Accepted draft tokens, in order. */
  tokens: number[];
  /** The model's own next token after them. */
  bonus: number;
  /** Chain whose KV holds the accepted path, and how many of its tokens to keep (pending token included). */
  chain: number;
  keep: number;
}

export function argmax(lp: LogProbs): number {
  let best = 0;
  for (let i = 1; i < lp.length; i++) if (lp[i] > lp[best]) best = i;
  return best;
}

export function greedyWalk(tree: PrefixTree, lp: LogProbs[][], tau = 1): Acceptance {
  const logTau = Math.log(tau);
  let level: TreeNode[] = tree.roots;
  let dist = lp[0][0];
  let chain = 0;
  let depth = 0;
  const tokens: number[] = [];
  for (;;) {
    const am = argmax(dist);
    let next: TreeNode | undefined;
    if (tau >= 1) {
      next = level.find((n) => n.token === am);
    } else {
      for (const n of level) if (!next || dist[n.token] > dist[next.token]) next = n;
      if (next && dist[next.token] - dist[am] < logTau) next = undefined;
    }
    if (!next) return { tokens, bonus: am, chain, keep: depth + 1 };
    tokens.push(next.token);
    chain = next.chain;
    depth = next.depth;
    dist = lp[chain][depth];
    level = next.children;
  }
}

/** Draw from softmax(lp / temperature) with `random()` in [0, 1). */
export function sampleToken(lp: LogProbs, temperature: number, random: () => number): number {
  let max = -Infinity;
  for (let i = 0; i < lp.length; i++) if (lp[i] > max) max = lp[i];
  let sum = 0;
  const w = new Float64Array(lp.length);
  for (let i = 0; i < lp.length; i++) sum += w[i] = Math.exp((lp[i] - max) / temperature);
  let r = random() * sum;
  for (let i = 0; i < lp.length; i++) {
    r -= w[i];
    if (r < 0) return i;
  }
  // Rounding left r ≥ 0 after the last weight: return the last token with any weight.
  for (let i = lp.length - 1; i >= 0; i--) if (w[i] > 0) return i;
  return 0;
}

export function sampleWalk(tree: PrefixTree, lp: LogProbs[][], temperature: number, random: () => number): Acceptance {
  let level: TreeNode[] = tree.roots;
  let dist = lp[0][0];
  let chain = 0;
  let depth = 0;
  const tokens: number[] = [];
  for (;;) {
    const x = sampleToken(dist, temperature, random);
    const next = level.find((n) => n.token === x);
    if (!next) return { tokens, bonus: x, chain, keep: depth + 1 };
    tokens.push(x);
    chain = next.chain;
    depth = next.depth;
    dist = lp[chain][depth];
    level = next.children;
  }
}
