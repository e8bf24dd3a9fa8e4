/**
 * ToyTarget: a deterministic, seeded stand-in for the ONNX decoder in the algorithm tests and
 * the matcher-overhead benchmark. It is a real causal model in the sense the algorithms need —
 * the distribution of each next token is a pure function of the whole context (prompt + tokens
 * so far), the session keeps a "KV cache" of committed tokens, and `step` scores chains that
 * continue it — but its weights are hash functions instead of a network.
 *
 * To behave like a document VLM it "reads" a hidden source sequence chosen by the prompt (the
 * page, or one region): at output position i it strongly prefers `source[i]`, except at seeded
 * "error" positions where a hashed noise token wins, so drafts made from the source are right
 * most of the time but not always. After the source it prefers the stop token.
 */
import { hashInts } from '../../server/speculative/random';
import type { LogProbs, TargetModel, TargetSession, TokenInfo } from '../../server/speculative/types';

export interface ToyVocab {
  size: number;
  stop: number;
  /** Location tokens are ids [locStart, locStart + locCount). */
  locStart: number;
  locCount: number;
}

export const TOY_VOCAB: ToyVocab = { size: 64, stop: 1, locStart: 48, locCount: 16 };

export function toyTokenInfo(v: ToyVocab = TOY_VOCAB): TokenInfo {
  return {
    isLocation: (id) => id >= v.locStart && id < v.locStart + v.locCount,
    isStop: (id) => id === v.stop,
    location: (id) => (id >= v.locStart && id < v.locStart + v.locCount ? id - v.locStart : undefined),
    locationToken: (n) => (n >= 0 && n < v.locCount ? v.locStart + n : undefined),
  };
}

export interface ToyOptions {
  seed: number;
  vocab?: ToyVocab;
  /** The hidden text the model reads for a prompt (prompt → source tokens, without the stop token). */
  sourceOf: (prompt: readonly number[]) => readonly number[];
  /** Share of positions where the model does not copy its source (default 0.1). */
  errorRate?: number;
  /** Extra work per scored position (a loop of this many multiply-adds) so timing has a cost to compare. */
  workPerToken?: number;
}

export class ToyTarget implements TargetModel {
  readonly vocab: ToyVocab;
  /** Every chain position scored by any session (the cost measure of the toy). */
  scored = 0;
  constructor(readonly opts: ToyOptions) {
    this.vocab = opts.vocab ?? TOY_VOCAB;
  }

  open(): TargetSession {
    return new ToySession(this);
  }

  async stepMany(
    requests: { session: TargetSession; chains: readonly (readonly number[])[] }[],
  ): Promise<LogProbs[][][]> {
    const out: LogProbs[][][] = [];
    for (const r of requests) out.push(await r.session.step(r.chains));
    return out;
  }

  /** The next-token log-probs after `context` (prompt + generated), for a prompt of `promptLength` tokens. */
  logProbs(context: readonly number[], promptLength: number, source: readonly number[]): LogProbs {
    const V = this.vocab.size;
    const pos = context.length - promptLength;
    const seed = this.opts.seed;
    const tail = context.slice(Math.max(0, context.length - 4));
    const errorRate = this.opts.errorRate ?? 0.1;
    const expected = pos < source.length ? source[pos] : this.vocab.stop;
    const err = (hashInts([seed, pos, ...tail], 0x9e3779b9) % 10000) / 10000 < errorRate;
    const logits = new Float64Array(V);
    for (let v = 0; v < V; v++) logits[v] = (hashInts([seed, v, pos, ...tail]) % 1000) / 250; // noise in [0, 4)
    if (!err) logits[expected] += 6;
    // Past the source's end, stop for sure, so every decode terminates.
    if (pos > source.length + 8) logits[this.vocab.stop] += 100;
    burn(this.opts.workPerToken ?? 0);
    this.scored++;
    return logSoftmax(logits);
  }
}

class ToySession implements TargetSession {
  private committed: number[] = [];
  private promptLength = 0;
  private source: readonly number[] = [];
  private last: readonly (readonly number[])[] = [];
  constructor(private readonly model: ToyTarget) {}

  get vocabSize(): number {
    return this.model.vocab.size;
  }

  async prefill(prompt: readonly number[]): Promise<LogProbs> {
    this.committed = [...prompt];
    this.promptLength = prompt.length;
    this.source = this.model.opts.sourceOf(prompt);
    return this.model.logProbs(this.committed, this.promptLength, this.source);
  }

  async step(chains: readonly (readonly number[])[]): Promise<LogProbs[][]> {
    if (chains.length === 0) throw new Error('ToyTarget.step: no chains');
    const first = chains[0][0];
    for (const c of chains)
      if (c.length === 0 || c[0] !== first)
        throw new Error('ToyTarget.step: chains must all start with the pending token');
    this.last = chains;
    return chains.map((c) => {
      const ctx = [...this.committed];
      return c.map((tok) => {
        ctx.push(tok);
        return this.model.logProbs(ctx, this.promptLength, this.source);
      });
    });
  }

  keep(chain: number, length: number): void {
    const c = this.last[chain];
    if (!c || length < 1 || length > c.length)
      throw new Error(`ToyTarget.keep: no chain ${chain} of length ≥ ${length}`);
    this.committed.push(...c.slice(0, length));
    this.last = [];
  }
}

function logSoftmax(logits: Float64Array): LogProbs {
  let max = -Infinity;
  for (const x of logits) if (x > max) max = x;
  let sum = 0;
  for (const x of logits) sum += Math.exp(x - max);
  const lse = max + Math.log(sum);
  const out = new Float32Array(logits.length);
  for (let i = 0; i < logits.length; i++) out[i] = logits[i] - lse;
  return out;
}

let sink = 0;
function burn(n: number): void {
  let x = sink;
  for (let i = 0; i < n; i++) x = (x * 1.0000001 + 1e-9) % 1e6;
  sink = x;
}
