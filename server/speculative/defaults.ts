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

/**
 * Measured (docs/speculative.md "At real size"): a pass over 4 tokens costs about one step, 8
 * about 1.3–1.4 steps, 16–32 about 3–4, and every extra chain forks the whole KV cache (8 chains
 * × 8 tokens ≈ 24 steps). One chain of at most 8 drafted tokens: 0.30–0.34 of ar's decoding
 * time with the pipeline's drafts under forced outputs (random weights, Docling's DocTags as the
 * model's choice: an upper bound, not measured on the real model), and no slower than ar with
 * useless ones (back-off). `hsd` is not the
 * default: each region crop costs vision encoding (≥ 2 images of ~11 s here) before Stage 1
 * starts, more than it can save. Stage 1 unbatched: a CPU batch is as compute-bound as its rows.
 */
export const CPU_DEFAULTS: SpecDefaults = { mode: 'page', K: 8, maxChains: 1, verify: 'deepest', stage1Batched: false };
/**
 * Pass costs measured on an H200 with PyTorch eager (bench/gpu.md, 2026-11-28): a pass over 64
 * tokens or 8 chains × 32 costs ~1.1 decode steps (launch-bound), so K = 32 and 8 chains. Not
 * measured through onnxruntime's CUDA provider, and no acceptance from the real model. `page`, not `hsd`:
 * hsd's oracle gain over page on born-digital pages is ~6 % in tokens/pass before its Stage 1
 * vision encoding and prefill of every region crop are paid; switch only on measured numbers.
 */
export const GPU_DEFAULTS: SpecDefaults = { mode: 'page', K: 32, maxChains: 8, verify: 'chains', stage1Batched: true };

/**
 * WebGPU: greedy (`auto` = off). On SwiftShader a 9-row verification pass over a cache WebGPU had
 * prefilled itself once disagreed with one-token steps by up to 0.34 in a logit (top-2 margin
 * 0.022, so `page` wrote another token at position 11). Replayed from a saved WebGPU-prefilled
 * cache (docs/vlm.md "WebGPU"), the same passes agree (≤ 4.4e-6, no flip); that run's prefill had
 * one pass with scattered wrong rows (up to 2.3 in a logit) that a rerun from the same inputs does
 * not repeat: a transient fault of the WebGPU stack on SwiftShader, which strikes greedy passes as
 * well. Speculation's passes score as greedy's on WebGPU and `page`/`hsd` write greedy's tokens
 * (CI), but with no GPU machine to show it on real hardware `page` and `hsd` asked for by name run
 * greedy too (`specModeFor`), and greedy keeps its cache on the GPU (`deviceCache`).
 */
export const WEBGPU_DEFAULTS: SpecDefaults = { ...GPU_DEFAULTS, mode: 'ar' };

export function specDefaultsFor(provider: string): SpecDefaults {
  return provider === 'cpu' ? CPU_DEFAULTS : provider === 'webgpu' ? WEBGPU_DEFAULTS : GPU_DEFAULTS;
}

/** The user's choice (`--speculation`, folio.vlm.speculation): auto = the provider's default, off = plain greedy. */
export type SpeculationSetting = 'auto' | 'off' | 'page' | 'hsd';

export const SPECULATION_SETTINGS: readonly SpeculationSetting[] = ['auto', 'off', 'page', 'hsd'];

/**
 * The mode a setting runs on a provider (`ar` for off). WebGPU always decodes greedily: its
 * verification passes agree with one-token steps, but the only WebGPU device measured
 * (SwiftShader) has given transient wrong passes (WEBGPU_DEFAULTS), so speculation on WebGPU waits
 * for a check on a real GPU; the VLM worker's WebGPU decoder keeps the cache on the GPU, which only
 * greedy decoding can use.
 */
export function specModeFor(setting: SpeculationSetting | undefined, provider: string): SpecMode {
  if (setting === 'off' || provider === 'webgpu') return 'ar';
  if (setting === 'page' || setting === 'hsd') return setting;
  return specDefaultsFor(provider).mode;
}
