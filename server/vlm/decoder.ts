/**
 * `DecoderSession`: one batch of decoding rows over the merged decoder ONNX model, owning its
 * KV cache. This is the seam the speculative decoder (server/speculative) plugs into:
 *
 *  - `prefill(rows)`    prompt embeddings per row (left-padded into one batch) → logits of each
 *                       row's last prompt position;
 *  - `step(tokens)`     new token ids per row (rows may differ in length: shorter ones are padded
 *                       on the right and masked) → logits for every new position of every row;
 *  - `keepPath(row, n)` keep one row and only the first `n` positions of the last step
 *                       (the accepted part of a draft chain); other rows are dropped;
 *  - `truncate(len)`    cut every row's cache back to `len` positions;
 *  - `selectRows(rows)` keep / reorder / duplicate rows (`selectRows([0,0,0])` forks one row
 *                       into three draft chains).
 *
 * Positions are per row: a row's next position is the number of unmasked cache entries, the same
 * rule as transformers' `cumsum(attention_mask) - 1`, so left padding and masked holes (ragged
 * steps) never shift the rotary positions. The caches are kept as the decoder returned them
 * (`present.*` fed back as `past_key_values.*`); cutting positions or dropping rows compacts
 * them inside their own buffers, and only forking a row (`selectRows([0, 0, …])`) allocates.
 */
import { Tensor, type Session } from '../onnx/runtime';

export interface DecoderShape {
  layers: number;
  kvHeads: number;
  headDim: number;
  hidden: number;
  /** Vocabulary size (logits width), when known before the first run. */
  vocab?: number;
}

export interface DecoderModel {
  decoder: Session;
  embed: Session;
  shape: DecoderShape;
  /** Token used to fill padded positions (never attended to). */
  padId: number;
}

/** Time spent in the decoder's runs, for the benchmark's breakdown. */
export interface DecoderTimings {
  embedMs: number;
  decoderMs: number;
  runs: number;
}

function int64(values: number[], dims: number[]): Tensor {
  return new Tensor('int64', BigInt64Array.from(values, (v) => BigInt(v)), dims);
}

export class DecoderSession {
  /** past_key_values tensors, [layer][0 = key, 1 = value], each [batch, kvHeads, T, headDim]. */
  private kv: Tensor[][] = [];
  /** Per row: 1 for cache entries that are attended to, 0 for padding. */
  private mask: number[][] = [];
  private lastStep: { k: number; lens: number[] } | undefined;
  readonly timings: DecoderTimings = { embedMs: 0, decoderMs: 0, runs: 0 };

  constructor(private readonly model: DecoderModel) {}

  get batch(): number {
    return this.mask.length;
  }

  /** Cache length (padded), the same for every row. */
  get length(): number {
    return this.mask[0]?.length ?? 0;
  }

  /** Next rotary position of each row. */
  positions(): number[] {
    return this.mask.map((m) => m.reduce((a, b) => a + b, 0));
  }

  /** Logits width: from the config until the first run, then from the decoder's output. */
  get vocabSize(): number {
    return this.vocab || this.model.shape.vocab || 0;
  }
  private vocab = 0;

  /** Embeddings of token ids, [rows][len × hidden]; used for prompts and steps. */
  async embed(ids: number[][]): Promise<Float32Array> {
    const len = ids[0]?.length ?? 0;
    const t0 = performance.now();
    const out = await this.model.embed.run({ input_ids: int64(ids.flat(), [ids.length, len]) });
    this.timings.embedMs += performance.now() - t0;
    return out.inputs_embeds.data as Float32Array;
  }

  /**
   * Runs the prompts (one `Float32Array` of len × hidden per row) with an empty cache and returns
   * the logits of each row's last position (`all: true`: every position, left padding excluded).
   */
  async prefill(rows: Float32Array[], opts: { all?: boolean } = {}): Promise<Float32Array[][]> {
    const H = this.model.shape.hidden;
    const lens = rows.map((r) => r.length / H);
    const S = Math.max(...lens);
    const b = rows.length;
    const embeds = new Float32Array(b * S * H);
    const mask: number[][] = [];
    const pos: number[] = [];
    rows.forEach((r, i) => {
      const pad = S - lens[i];
      embeds.set(r, (i * S + pad) * H);
      mask.push([...new Array(pad).fill(0), ...new Array(lens[i]).fill(1)]);
      for (let j = 0; j < S; j++) pos.push(j < pad ? 1 : j - pad);
    });
    const { kvHeads, headDim, layers } = this.model.shape;
    const empty = Array.from({ length: layers }, () => [0, 1].map(() => new Tensor('float32', new Float32Array(0), [b, kvHeads, 0, headDim])));
    this.kv = empty;
    this.mask = mask;
    // Only the last position's logits are needed unless `all`: with num_logits_to_keep the real
    // export then skips a [b, ~1100, 100352] float output (~450 MB per page).
    const logits = await this.run(new Tensor('float32', embeds, [b, S, H]), pos, S, opts.all ? S : 1);
    this.lastStep = undefined;
    return logits.map((rowLogits, i) => (opts.all ? rowLogits.slice(S - lens[i]) : [rowLogits[rowLogits.length - 1]]));
  }

  /**
   * Feeds new tokens (one list per row; lists may differ in length) and returns, per row, the
   * logits after each of its tokens.
   */
  async step(tokens: number[][]): Promise<Float32Array[][]> {
    if (tokens.length !== this.batch) throw new Error(`step: ${tokens.length} rows given, batch is ${this.batch}`);
    const k = Math.max(...tokens.map((t) => t.length));
    if (k === 0) return tokens.map(() => []);
    const padded = tokens.map((t) => [...t, ...new Array(k - t.length).fill(this.model.padId)]);
    const next = this.positions();
    const pos: number[] = [];
    tokens.forEach((t, r) => {
      for (let i = 0; i < k; i++) pos.push(next[r] + Math.min(i, Math.max(0, t.length - 1)));
      this.mask[r].push(...new Array(t.length).fill(1), ...new Array(k - t.length).fill(0));
    });
    const embeds = await this.embed(padded);
    const logits = await this.run(new Tensor('float32', embeds, [tokens.length, k, this.model.shape.hidden]), pos, k);
    this.lastStep = { k, lens: tokens.map((t) => t.length) };
    return logits.map((l, r) => l.slice(0, tokens[r].length));
  }

  /** Keeps row `row` alone, with only the first `keep` positions of the last `step`. */
  keepPath(row: number, keep: number): void {
    if (!this.lastStep) throw new Error('keepPath: no step to keep a path of');
    if (keep < 0 || keep > this.lastStep.lens[row]) throw new Error(`keepPath: cannot keep ${keep} of ${this.lastStep.lens[row]} positions`);
    const len = this.length - this.lastStep.k + keep;
    this.reshapeCache([row], len);
  }

  /**
   * Keeps several rows (in the given order), each with only the first `keeps[i]` positions of the
   * last `step`: the accepted chains of several sequences decoded as one batch (speculative
   * Stage 1). Rows that keep fewer positions than the longest get masked holes, which the
   * per-row positions already skip. Added by server/speculative (see docs/speculative.md).
   */
  keepPaths(rows: number[], keeps: number[]): void {
    const last = this.lastStep;
    if (!last) throw new Error('keepPaths: no step to keep paths of');
    if (rows.length !== keeps.length || rows.length === 0) throw new Error('keepPaths: one keep length per row');
    rows.forEach((r, i) => {
      if (keeps[i] < 0 || keeps[i] > last.lens[r]) throw new Error(`keepPaths: cannot keep ${keeps[i]} of ${last.lens[r]} positions`);
    });
    const most = Math.max(...keeps);
    const len = this.length - last.k + most;
    this.reshapeCache(rows, len);
    rows.forEach((_, i) => {
      for (let j = keeps[i]; j < most; j++) this.mask[i][len - most + j] = 0;
    });
  }

  /** Cuts every row's cache back to its first `len` positions. */
  truncate(len: number): void {
    if (len > this.length) throw new Error(`truncate: cache has ${this.length} positions, not ${len}`);
    this.reshapeCache(this.mask.map((_, i) => i), len);
  }

  /** Keeps the given rows in the given order (a row may appear several times). */
  selectRows(rows: number[]): void {
    this.reshapeCache(rows, this.length);
  }

  /**
   * For benchmarks: a one-row cache of `len` positions filled with small seeded values, as if a
   * prompt of that length had been prefilled. A pass costs the same whatever the cached values,
   * so step costs at long contexts are measured without paying for a long prefill first.
   */
  seedCacheForBenchmark(len: number, seed = 1): void {
    const { kvHeads, headDim, layers } = this.model.shape;
    let x = seed >>> 0;
    this.kv = Array.from({ length: layers }, () =>
      [0, 1].map(() => {
        const d = new Float32Array(kvHeads * len * headDim);
        for (let i = 0; i < d.length; i++) {
          x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
          d[i] = (x / 4294967296 - 0.5) * 0.2;
        }
        return new Tensor('float32', d, [1, kvHeads, len, headDim]);
      }),
    );
    this.mask = [new Array(len).fill(1)];
    this.lastStep = undefined;
  }

  /** Drops the cache. */
  dispose(): void {
    this.kv = [];
    this.mask = [];
    this.lastStep = undefined;
  }

  /** Cache rebuilds that moved data inside the existing buffers (no allocation), and that copied. */
  readonly cacheOps = { inPlace: 0, copied: 0 };

  private reshapeCache(rows: number[], len: number): void {
    const { kvHeads, headDim } = this.model.shape;
    const T = this.length;
    const same = len === T && rows.length === this.batch && rows.every((r, i) => r === i);
    // Rows kept in increasing order and no longer than before (cut a rejected draft, keep one
    // accepted chain of a fork, retire finished rows): compacted inside the same buffers. Every
    // block moves to an offset at or before its source and blocks move in increasing order, so
    // no block is overwritten before it is moved (copyWithin has memmove semantics). Tensors then
    // view the front of the buffer. Only forks (a row repeated) allocate.
    const inPlace = !same && len <= T && rows.every((r, i) => r >= i && (i === 0 || r > rows[i - 1]));
    if (inPlace) {
      this.kv = this.kv.map((pair) =>
        pair.map((t) => {
          const buf = t.data as Float32Array;
          rows.forEach((r, i) => {
            for (let h = 0; h < kvHeads; h++) {
              const from = (r * kvHeads + h) * T * headDim;
              const to = (i * kvHeads + h) * len * headDim;
              if (from !== to) buf.copyWithin(to, from, from + len * headDim);
            }
          });
          return new Tensor('float32', buf.subarray(0, rows.length * kvHeads * len * headDim), [rows.length, kvHeads, len, headDim]);
        }),
      );
      this.mask = rows.map((r) => this.mask[r].slice(0, len));
      this.cacheOps.inPlace++;
    } else if (!same) {
      this.cacheOps.copied++;
      this.kv = this.kv.map((pair) =>
        pair.map((t) => {
          const src = t.data as Float32Array;
          const dst = new Float32Array(rows.length * kvHeads * len * headDim);
          rows.forEach((r, i) => {
            for (let h = 0; h < kvHeads; h++) {
              const from = ((r * kvHeads + h) * T) * headDim;
              dst.set(src.subarray(from, from + len * headDim), ((i * kvHeads + h) * len) * headDim);
            }
          });
          return new Tensor('float32', dst, [rows.length, kvHeads, len, headDim]);
        }),
      );
      this.mask = rows.map((r) => this.mask[r].slice(0, len));
    }
    this.lastStep = undefined;
  }

  /**
   * One decoder run over k new positions; returns logits per row for the last `keep` positions
   * (all k when the graph has no num_logits_to_keep input and returns every position).
   */
  private async run(embeds: Tensor, pos: number[], k: number, keep = k): Promise<Float32Array[][]> {
    const b = this.batch;
    const T = this.length;
    const names = this.model.decoder.inputNames;
    const feeds: Record<string, Tensor> = {
      inputs_embeds: embeds,
      attention_mask: int64(this.mask.flat(), [b, T]),
    };
    // Inputs that differ between exports: onnxruntime wants every declared input fed and
    // rejects undeclared ones, so each is sent only when the graph declares it.
    if (names.includes('position_ids')) feeds.position_ids = int64(pos, [b, k]);
    if (names.includes('num_logits_to_keep')) feeds.num_logits_to_keep = new Tensor('int64', BigInt64Array.from([BigInt(keep)]), []);
    if (names.includes('use_cache_branch')) feeds.use_cache_branch = new Tensor('bool', Uint8Array.from([T - k > 0 ? 1 : 0]), [1]);
    this.kv.forEach((pair, l) => {
      feeds[`past_key_values.${l}.key`] = pair[0];
      feeds[`past_key_values.${l}.value`] = pair[1];
    });
    const t0 = performance.now();
    const out = await this.model.decoder.run(feeds);
    this.timings.decoderMs += performance.now() - t0;
    this.timings.runs++;
    this.kv = this.kv.map((_, l) => [out[`present.${l}.key`], out[`present.${l}.value`]]);
    const logits = out.logits;
    const V = logits.dims[2];
    const L = logits.dims[1];
    this.vocab = V;
    const data = logits.data as Float32Array;
    const res: Float32Array[][] = [];
    for (let r = 0; r < b; r++) {
      const row: Float32Array[] = [];
      for (let i = Math.max(0, L - keep); i < L; i++) row.push(data.subarray((r * L + i) * V, (r * L + i + 1) * V));
      res.push(row);
    }
    return res;
  }
}
