/**
 * The seam between speculative decoding and whatever runs the target model.
 *
 * A `TargetSession` is one decoding sequence whose KV cache the implementation owns. The
 * speculative loop only ever asks it three things: prefill the prompt, score a batch of token
 * chains that all continue the committed prefix, and keep the KV entries of one chain's accepted
 * part. The VLM engine's ONNX decoder (server/vlm) and the deterministic toy model used by the
 * algorithm tests (test/speculative/toyTarget.ts) both implement it, so the algorithms are tested and benchmarked
 * against the same interface that runs in production.
 */

import type { LoopGuardOptions } from '../util/loopGuard';

/** Log-probabilities over the vocabulary for one position (length = vocabulary size). */
export type LogProbs = Float32Array;

export interface TargetSession {
  readonly vocabSize: number;
  /**
   * Run the prompt through the model and commit it to the KV cache. Returns the log-probs of the
   * first generated token. Counts as one decoder pass.
   */
  prefill(prompt: readonly number[]): Promise<LogProbs>;
  /**
   * Score `chains` in one decoder pass. Every chain starts with the same token (the last
   * generated token, not yet in the KV cache) and continues the committed prefix. Returns, per
   * chain, one `LogProbs` per chain position: `out[c][i]` is the distribution of the token that
   * follows `chains[c][0..i]`. Implementations may return only the positions requested by
   * `keepLast` semantics in the future; today every position is returned.
   */
  step(chains: readonly (readonly number[])[]): Promise<LogProbs[][]>;
  /** Keep the KV entries of `chains[chain][0..length)` from the last `step`; drop every other chain. */
  keep(chain: number, length: number): void;
  /** Release the KV cache (idempotent). */
  dispose?(): void;
}

/**
 * Opens sessions; `stepMany` scores several sessions' chains in one batched pass (Stage 1 decodes
 * all regions of a page as one batch). Implementations without real batching may loop.
 */
export interface TargetModel {
  open(): TargetSession;
  stepMany?(requests: { session: TargetSession; chains: readonly (readonly number[])[] }[]): Promise<LogProbs[][][]>;
  /** Several sequences as the rows of one batch (one decoder run per round for all of them). */
  openBatch?(): TargetBatch;
}

/**
 * Sequences decoded together: each round scores every live sequence's chains in one decoder run.
 * Indices are into the list of live sequences, which `retire` shrinks.
 */
export interface TargetBatch {
  prefill(prompts: readonly (readonly number[])[]): Promise<LogProbs[]>;
  /** `chains[s]`: sequence s's chains (each starting with its pending token). */
  step(chains: readonly (readonly (readonly number[])[])[]): Promise<LogProbs[][][]>;
  /** Per live sequence: the chain to keep and how many of its tokens. */
  keep(choices: readonly { chain: number; keep: number }[]): void;
  /** Keep only the sequences where `live[s]` is true. */
  retire(live: readonly boolean[]): void;
  dispose(): void;
}

/** Which tokens are special for matching and stop conditions. */
export interface TokenInfo {
  /** `<loc_N>` tokens: drafted, but left out of the match key and skipped when aligning. */
  isLocation(id: number): boolean;
  /** Tokens that end decoding (`</doctag>`, `<|end_of_text|>`). */
  isStop(id: number): boolean;
  /**
   * Optional: the symbol a token contributes to match keys (default: itself). Mapping every
   * opening element tag to one symbol and every closing tag to another lets a block whose class
   * the pipeline got wrong (text vs section header vs caption) still line up after its tag.
   */
  keySymbol?(id: number): number;
  /** Optional: the grid value of a location token (ranks candidates by box distance). */
  location?(id: number): number | undefined;
  /** Optional: the token of grid value `value` (lets the matcher propose nearby boxes). */
  locationToken?(value: number): number | undefined;
  /**
   * Optional, for vocabularies where `<loc_N>` is several BPE pieces (granite-docling's real one:
   * `<` `loc` `_` `N` `>`, with `>` merged into the next piece: `><`, `>T`): per token of
   * `tokens`, −1 outside locations, 0 a structural piece of a location, 1 the value piece (whose
   * grid value `location(id)` gives). A piece mixing a location's `>` with following text
   * (`>T`) is not a location piece. A location cut off at the end of `tokens` counts as one (the
   * model is writing it). When absent, `isLocation` marks single-token locations as values.
   */
  locationRoles?(tokens: readonly number[]): Int8Array;
}

export type SpecMode = 'ar' | 'page' | 'hsd';

export interface MatchOptions {
  /** Key length: last n accepted non-location tokens (default 3), falling back to n−1 … 1. */
  n: number;
  /** Longest candidate suffix, in tokens (default 32). */
  K: number;
  /** Most candidate chains verified in one pass (default 8). */
  maxChains: number;
  /**
   * When the best proposal starts with a location token of value v, also propose v ± 1 … v ±
   * locSpread there (short extra chains: the rest of that box), since the model's boxes are
   * usually a grid step or two off the pipeline's (default 0 = off).
   */
  locSpread?: number;
  /** Move drafted boxes by the model's observed offset per coordinate (DraftIndex, default false). */
  calibrateBoxes?: boolean;
}

export interface DecodeOptions extends Partial<MatchOptions> {
  /** Acceptance threshold τ for greedy decoding: accept while log p(child) − log p(argmax) ≥ log τ. 1 = exact. */
  tau?: number;
  /** 0 = greedy (default). > 0: lossless speculative sampling at that temperature. */
  temperature?: number;
  /** Seeded RNG for sampling (default: a fixed-seed generator, so runs are reproducible). */
  random?: () => number;
  /** Stop after this many generated tokens (default 8192, docling's limit). */
  maxNewTokens?: number;
  /** `chains`: every root-to-leaf path of the prefix tree; `deepest`: only the longest one. */
  verify?: 'chains' | 'deepest';
  /** hsd Stage 1 as one batch of all regions (default true; see defaults.ts per provider). */
  stage1Batched?: boolean;
  /** Repetition-loop guard (server/util/loopGuard.ts; default DEFAULT_LOOP_GUARD, false = off). */
  loopGuard?: LoopGuardOptions | false;
  /** Checked before every decoder pass; when set the decode throws `CancelledError` (server/errors.ts). */
  signal?: { readonly aborted: boolean };
  /**
   * Streamer: called with each committed token in order (stop token included), as greedyGenerate
   * calls its `onToken`. Tokens after a stop, the bound or a detected loop are never reported.
   */
  onToken?: (id: number) => void;
}

export interface DecodeStats {
  /** Decoder passes after prefill (one per `step`). */
  passes: number;
  /** Draft tokens accepted over all passes (the model's own bonus token not counted). */
  accepted: number;
  /** Tokens generated (accepted drafts + one bonus token per pass, minus a stop cut). */
  generated: number;
  /** Tokens sent through the decoder in all chains (the batch cost of verification). */
  scored: number;
}

export interface DecodeResult {
  tokens: number[];
  stats: DecodeStats;
  /** 'loop': the repetition guard stopped it; tokens from `loopStart` on are the loop. */
  reason?: 'stop' | 'max' | 'loop';
  loopStart?: number;
}
