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
import type { DecoderSession } from '../vlm/decoder';
import type { LogProbs, TargetModel, TargetSession } from './types';

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
    const emb = this.promptEmbeds ? await this.promptEmbeds(this.session, prompt) : await this.session.embed([[...prompt]]);
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
