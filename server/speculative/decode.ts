/**
 * The speculative decoding loop for one sequence, written as a small state machine
 * (`SpecDecoder`: propose chains → accept the scored result) so Stage 1 can run many sequences in
 * lock-step as one batch, and `decodeOne` can drive a single sequence.
 *
 * Each pass: look up candidates for the tokens written so far, merge them into a prefix tree,
 * score its chains (each prefixed with the pending token, the last one written and not yet in the
 * KV cache), accept along the tree, keep the KV of the accepted path, append the model's own next
 * token. With no candidates the pass is a plain autoregressive step (a single one-token chain).
 */
import { greedyWalk, sampleToken, sampleWalk, argmax, type Acceptance } from './accept';
import { DEFAULT_MATCH, DraftIndex, locationVariants, type DraftPos } from './draftIndex';
import { buildPrefixTree, deepestOnly, type PrefixTree } from './prefixTree';
import type { DecodeOptions, DecodeResult, DecodeStats, LogProbs, TargetSession, TokenInfo } from './types';
import { mulberry32 } from './random';
import { DEFAULT_LOOP_GUARD, LoopGuard } from '../util/loopGuard';
import { CancelledError } from '../errors';

/** Throws `CancelledError` when the decode's cancel signal is set (checked between passes). */
export function checkAborted(opts: DecodeOptions): void {
  if (opts.signal?.aborted) throw new CancelledError('the VLM generation');
}

export const DEFAULT_MAX_NEW_TOKENS = 8192;

export class SpecDecoder {
  readonly tokens: number[] = [];
  readonly stats: DecodeStats = { passes: 0, accepted: 0, generated: 0, scored: 0 };
  done = false;
  /** Why decoding ended (valid once `done`). */
  reason: 'stop' | 'max' | 'loop' = 'max';
  /** Where the repetition loop began in `tokens` (reason 'loop'), as greedyGenerate reports it. */
  loopStart = -1;
  /**
   * The repetition-loop guard of greedyGenerate, fed every committed token: a loop the drafts
   * keep confirming (a repeated table row the pipeline also repeats) is accepted many tokens per
   * pass, so without it speculation would run to maxNewTokens even faster than ar would.
   * It fires on the same token as in ar, and tokens after it in the same pass are dropped.
   */
  private readonly guard: LoopGuard | undefined;
  private proposal: PrefixTree | undefined;
  private cursor: DraftPos | undefined;
  private starts: DraftPos[] = [];
  /** Adaptive budget: after a pass that accepted nothing, propose one short chain until one is accepted. */
  private budget: number;
  private width: number;
  /**
   * Back-off: after consecutive passes that accepted nothing, skip weak proposals (keys shorter
   * than n) for 1, 3, 7 … 31 passes. A wasted proposal is not free on the real decoder (longer
   * chains, a forked and then cut KV cache), so useless drafts must cost almost nothing.
   */
  private misses = 0;
  private cooldown = 0;
  /** Whether the last proposal came from a full-length key (n tokens) or a fallback. */
  private strongKey = false;
  private readonly K: number;
  private readonly maxChains: number;
  private readonly random: () => number;

  constructor(
    private readonly info: TokenInfo,
    private readonly index: DraftIndex | undefined,
    private readonly opts: DecodeOptions,
  ) {
    this.K = opts.K ?? DEFAULT_MATCH.K;
    this.maxChains = opts.maxChains ?? DEFAULT_MATCH.maxChains;
    this.budget = this.K;
    this.width = this.maxChains;
    this.random = opts.random ?? mulberry32(0x5eed);
    this.guard = opts.loopGuard === false ? undefined : new LoopGuard(opts.loopGuard ?? DEFAULT_LOOP_GUARD);
  }

  /** Take the first token from the prefill distribution. */
  start(first: LogProbs): void {
    this.push([this.pick(first)]);
  }

  /** Start from a known first token (the oracle replay, where the target sequence is given). */
  startWith(token: number): void {
    this.push([token]);
  }

  private pick(lp: LogProbs): number {
    const t = this.opts.temperature ?? 0;
    return t > 0 ? sampleToken(lp, t, this.random) : argmax(lp);
  }

  /** Chains to score in the next pass (each starts with the pending token). */
  propose(): number[][] {
    const pending = this.tokens[this.tokens.length - 1];
    this.proposal = undefined;
    this.starts = [];
    if (this.index) {
      let cands = this.index.candidates(this.tokens, { K: this.budget, maxChains: this.width }, this.cursor);
      this.strongKey = cands.length > 0 && cands[0].keyLength >= this.index.n;
      if (this.cooldown > 0) {
        this.cooldown--;
        if (cands.length > 0 && cands[0].keyLength < this.index.n) cands = [];
      }
      // Nearby boxes only while drafts are being accepted (the width drops to 1 after misses).
      if (cands.length > 0 && this.width > 1)
        cands.push(...locationVariants(cands[0], this.info, this.opts.locSpread ?? 0));
      if (cands.length > 0) {
        let tree = buildPrefixTree(cands.map((c) => c.tokens));
        if (this.opts.verify === 'deepest') tree = deepestOnly(tree);
        this.proposal = tree;
        // Where each chain starts in the drafts, to continue the cursor after acceptance.
        this.starts = tree.chains.map(
          (ch) => cands.find((c) => startsWith(c.tokens, ch) || startsWith(ch, c.tokens))!.at,
        );
      }
    }
    if (!this.proposal) return [[pending]];
    return this.proposal.chains.map((c) => [pending, ...c]);
  }

  /** The prefix tree of the last `propose` (undefined when it proposed a plain step). */
  get tree(): PrefixTree | undefined {
    return this.proposal;
  }

  /** Apply the scores of the chains from `propose`; returns the KV entries to keep. */
  accept(lp: LogProbs[][], chains: number[][]): { chain: number; keep: number } {
    const t = this.opts.temperature ?? 0;
    let a: Acceptance;
    if (this.proposal) {
      a = t > 0 ? sampleWalk(this.proposal, lp, t, this.random) : greedyWalk(this.proposal, lp, this.opts.tau ?? 1);
    } else {
      a = { tokens: [], bonus: this.pick(lp[0][0]), chain: 0, keep: 1 };
    }
    return this.commit(a, chains);
  }

  /**
   * Record an acceptance decided elsewhere (the oracle replay decides it from the known target
   * sequence instead of scores). `chains` are the ones `propose` returned.
   */
  commit(a: Acceptance, chains: readonly (readonly number[])[]): { chain: number; keep: number } {
    this.stats.passes++;
    for (const c of chains) this.stats.scored += c.length;
    if (this.proposal) {
      const at = this.starts[a.chain];
      this.cursor = at && a.tokens.length > 0 ? { draft: at.draft, pos: at.pos + a.tokens.length + 1 } : undefined;
      if (a.tokens.length === 0 && !this.strongKey) {
        // A fallback key that missed: one short chain until something is accepted again, and
        // no fallback proposals for a while (a rejected chain is pure cost).
        this.budget = 2;
        this.width = 1;
        this.misses++;
        this.cooldown = (1 << Math.min(this.misses, 5)) - 1;
      } else if (a.tokens.length === 0) {
        // A full-length key that missed (drafts that repeat the output's words in another
        // order): halve the chain, down to 2 drafted tokens — a pass of ≤ 4 tokens costs about
        // one step even on a CPU, so a chance match then costs nothing measurable.
        this.budget = Math.max(2, this.budget >> 1);
        this.width = Math.max(1, this.width >> 1);
      } else if (a.tokens.length > 0) {
        this.budget = this.K;
        this.width = this.maxChains;
        this.misses = 0;
        this.cooldown = 0;
      }
    }
    this.stats.accepted += a.tokens.length;
    this.push([...a.tokens, a.bonus]);
    return { chain: a.chain, keep: a.keep };
  }

  private push(toks: number[]): void {
    const max = this.opts.maxNewTokens ?? DEFAULT_MAX_NEW_TOKENS;
    for (const tok of toks) {
      if (this.tokens.length >= max) {
        this.done = true;
        break;
      }
      this.tokens.push(tok);
      this.stats.generated++;
      this.opts.onToken?.(tok);
      if (this.info.isStop(tok)) {
        this.done = true;
        this.reason = 'stop';
        break;
      }
      if (this.guard?.push(tok)) {
        this.done = true;
        this.reason = 'loop';
        this.loopStart = this.guard.loopStart;
        break;
      }
    }
    if (this.tokens.length >= max) this.done = true;
  }
}

function startsWith(a: readonly number[], prefix: readonly number[]): boolean {
  if (prefix.length > a.length) return false;
  for (let i = 0; i < prefix.length; i++) if (a[i] !== prefix[i]) return false;
  return true;
}

/**
 * Decode one sequence. `drafts` may be a promise: the prompt's prefill starts at once and the
 * drafts are awaited only when the first speculative pass needs them, so the pipeline's drafting
 * (and OCR) overlaps the target's vision encoding and prefill instead of adding to it.
 */
export async function decodeOne(
  session: TargetSession,
  prompt: readonly number[],
  drafts: readonly (readonly number[])[] | Promise<readonly (readonly number[])[]> | undefined,
  info: TokenInfo,
  opts: DecodeOptions = {},
): Promise<DecodeResult> {
  const prefill = session.prefill(prompt);
  const [first, ds] = await Promise.all([prefill, drafts]);
  const index =
    ds && ds.length > 0 ? new DraftIndex(ds, info, opts.n ?? DEFAULT_MATCH.n, opts.calibrateBoxes) : undefined;
  const dec = new SpecDecoder(info, index, opts);
  dec.start(first);
  while (!dec.done) {
    checkAborted(opts);
    const chains = dec.propose();
    const lp = await session.step(chains);
    const { chain, keep } = dec.accept(lp, chains);
    session.keep(chain, keep);
  }
  return { tokens: dec.tokens, stats: dec.stats, reason: dec.reason, loopStart: dec.loopStart };
}
