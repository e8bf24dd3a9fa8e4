/**
 * Speculative-decoding defaults per execution provider, chosen from the full-size pass costs
 * (`npm run bench:vlm -- --full-size`, docs/speculative.md "At real size").
 *
 * Why they differ: on a CPU a decoder pass over k tokens is compute-bound beyond a few tokens
 * (the 576-wide layers and the 100,352-wide LM head run once per token scored), so every scored
 * token that is not accepted costs real time: one chain, a short cap K. On a GPU a pass over
 * 64–512 tokens costs about the same as a pass over one (weights are read once; the cost is
 * memory traffic and launch overhead), so wide prefix trees and long chains are nearly free and
 * Stage 1 batching pays.
 */
import type { SpecMode } from './types';

export interface SpecDefaults {
  mode: SpecMode;
  /** Longest drafted suffix per chain. */
  K: number;
  /** Chains verified per pass (1 = only the best candidate: no fork of the KV cache). */
  maxChains: number;
  verify: 'chains' | 'deepest';
  /** Whether hsd's Stage 1 decodes all regions as one batch (only worth it where batches are cheap). */
  stage1Batched: boolean;
}

export const CPU_DEFAULTS: SpecDefaults = { mode: 'page', K: 8, maxChains: 1, verify: 'deepest', stage1Batched: false };
export const GPU_DEFAULTS: SpecDefaults = { mode: 'hsd', K: 32, maxChains: 8, verify: 'chains', stage1Batched: true };

export function specDefaultsFor(provider: string): SpecDefaults {
  return provider === 'cpu' ? CPU_DEFAULTS : GPU_DEFAULTS;
}
