/**
 * Adapter from the VLM engine's ONNX `DecoderSession` (server/vlm/decoder.ts) to the
 * `TargetSession` seam the speculative loop speaks.
 *
 * The exported decoder takes a 2-D attention mask, so the prefix tree is verified as a batch of
 * linear chains sharing the KV prefix: the single committed row is forked into one row per chain
 * (`selectRows([0, 0, …])`), the chains are stepped as one ragged batch, and `keepPath` keeps the
 * accepted chain's row and only its accepted positions. One chain needs no fork at all, which is
 * why the adaptive budget in decode.ts drops to one chain when drafts stop matching.
 */
import type { DecoderSession } from './decoder';
import type { LogProbs, TargetBatch, TargetModel, TargetSession } from '../speculative/types';

export interface DecoderTargetOptions {
  /** Builds a fresh decoder session (one KV cache). */
  open(): DecoderSession;
  /**
   * Prompt embeddings for `prefill` ([len × hidden]); the VLM passes the text embeddings with the
   * image features spliced in. Default: the token embeddings of the ids alone (text-only prompts).
   */
  promptEmbeds?(session: DecoderSession, prompt: readonly number[]): Promise<Float32Array>;
}

export class DecoderTarget implements TargetModel {
  constructor(private readonly opts: DecoderTargetOptions) {}

  open(): TargetSession {
    return new DecoderTargetSession(this.opts.open(), this.opts.promptEmbeds);
  }

  openBatch(): TargetBatch {
    return new DecoderTargetBatch(this.opts.open(), this.opts.promptEmbeds);
  }
}

/**
 * Stage 1 on the ONNX decoder: every region is a row of one `DecoderSession`. Each round the rows
 * are forked into their chains (`selectRows`), all chains of all regions are stepped in one run,
 * and one accepted chain per region is kept.
 *
 * Rows accept different numbers of tokens, but every row of a batch has one cache length, and the
 * real export numbers positions from that length: a masked hole after a short acceptance would
 * shift the row's later positions and change its tokens. So the cache keeps the shortest accepted
 * length of the round, and each longer row's extra accepted tokens are `pending`: fed again at the
 * start of that row's next step (their logits recomputed and dropped). Every row's cache stays
 * contiguous, and each sequence decodes exactly as it would alone.
 */
export class DecoderTargetBatch implements TargetBatch {
  /** First row of each live sequence's chains in the last step. */
  private base: number[] = [];
  /** Per live sequence: accepted tokens not yet in the cache (re-fed first in the next step). */
  private pending: number[][] = [];
  /** The rows stepped last (pending + chain), per sequence and chain. */
  private stepped: number[][][] = [];
  constructor(
    private readonly session: DecoderSession,
    private readonly promptEmbeds?: (session: DecoderSession, prompt: readonly number[]) => Promise<Float32Array>,
  ) {}

  async prefill(prompts: readonly (readonly number[])[]): Promise<LogProbs[]> {
    const rows: Float32Array[] = [];
    for (const p of prompts)
      rows.push(this.promptEmbeds ? await this.promptEmbeds(this.session, p) : await this.session.embed([[...p]]));
    const out = await this.session.prefill(rows);
    this.pending = prompts.map(() => []);
    return out.map((r) => logSoftmax(r[r.length - 1]));
  }

  async step(chains: readonly (readonly (readonly number[])[])[]): Promise<LogProbs[][][]> {
    const sel: number[] = [];
    this.base = [];
    chains.forEach((cs, s) => {
      this.base.push(sel.length);
      for (let c = 0; c < cs.length; c++) sel.push(s);
    });
    if (sel.length !== this.session.batch || sel.some((r, i) => r !== i)) this.session.selectRows(sel);
    this.stepped = chains.map((cs, s) => cs.map((c) => [...(this.pending[s] ?? []), ...c]));
    const out = await this.session.step(this.stepped.flat());
    return chains.map((cs, s) =>
      cs.map((_, c) => out[this.base[s] + c].slice(this.pending[s]?.length ?? 0).map(logSoftmax)),
    );
  }

  keep(choices: readonly { chain: number; keep: number }[]): void {
    const lens = choices.map((ch, s) => (this.pending[s]?.length ?? 0) + ch.keep);
    const common = Math.min(...lens);
    this.session.keepPaths(
      choices.map((ch, s) => this.base[s] + ch.chain),
      common,
    );
    this.pending = choices.map((ch, s) => this.stepped[s][ch.chain].slice(common, lens[s]));
  }

  retire(live: readonly boolean[]): void {
    const rows = live.flatMap((l, s) => (l ? [s] : []));
    if (rows.length > 0 && rows.length !== live.length) this.session.selectRows(rows);
    this.pending = rows.map((s) => this.pending[s] ?? []);
  }

  dispose(): void {
    this.session.dispose();
  }
}

export class DecoderTargetSession implements TargetSession {
  constructor(
    readonly session: DecoderSession,
    private readonly promptEmbeds?: (session: DecoderSession, prompt: readonly number[]) => Promise<Float32Array>,
  ) {}

  get vocabSize(): number {
    return this.session.vocabSize;
  }

  async prefill(prompt: readonly number[]): Promise<LogProbs> {
    const emb = this.promptEmbeds
      ? await this.promptEmbeds(this.session, prompt)
      : await this.session.embed([[...prompt]]);
    const [row] = await this.session.prefill([emb]);
    return logSoftmax(row[row.length - 1]);
  }

  async step(chains: readonly (readonly number[])[]): Promise<LogProbs[][]> {
    if (chains.length === 0) throw new Error('DecoderTargetSession.step: no chains');
    if (chains.length > 1 || this.session.batch !== 1) this.session.selectRows(new Array(chains.length).fill(0));
    const out = await this.session.step(chains.map((c) => [...c]));
    return out.map((row) => row.map(logSoftmax));
  }

  keep(chain: number, length: number): void {
    this.session.keepPath(chain, length);
  }

  dispose(): void {
    this.session.dispose();
  }
}

/** Logits → log-probabilities (τ compares log-prob gaps; argmax is unchanged). */
export function logSoftmax(logits: Float32Array): LogProbs {
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) if (logits[i] > max) max = logits[i];
  let sum = 0;
  for (let i = 0; i < logits.length; i++) sum += Math.exp(logits[i] - max);
  const lse = max + Math.log(sum);
  const out = new Float32Array(logits.length);
  for (let i = 0; i < logits.length; i++) out[i] = logits[i] - lse;
  return out;
}
