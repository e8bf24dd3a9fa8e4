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
 * Positions: the real granite-docling export has no `position_ids` input; its graph numbers the
 * new positions from the cache length (transformers' Llama without position_ids), so a row's
 * positions are its cache indices, left padding included. Left padding only offsets every
 * position of a row alike, which rotary attention does not see (it depends on differences); a
 * masked hole INSIDE a row's cache would shift every later position, so no operation here leaves
 * one: ragged steps pad on the right and `keepPath`/`keepPaths`/`truncate` cut those pads away.
 * Exports that declare `position_ids` get the number of unmasked entries before each position
 * (transformers' `cumsum(attention_mask) - 1`), which is the same number for a hole-free cache.
 *
 * The caches are kept as the decoder returned them (`present.*` fed back as `past_key_values.*`);
 * cutting positions or dropping rows compacts them inside their own buffers, and only forking a
 * row (`selectRows([0, 0, …])`) allocates. Element types (float32 / float16) come from the
 * sessions' metadata (`describeDecoder`); Folio's side is always float32.
 *
 * Prefill: the real decoder returns logits for every position (vocab × length × 4 bytes: ~450 MB
 * for a 1,130-token page prompt). Without `num_logits_to_keep`, the prompt is fed in chunks whose
 * logits stay under `prefillLogitsBytes` (the cache carries the positions across chunks, so the
 * result is the same as one run).
 */
import { Tensor, type Session } from '../onnx/runtime';
import { asFloat32, floatData, sessionValues } from '../onnx/tensorTypes';

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
  /** The decoder's interface as its session declares it (default: read from `decoder`). */
  io?: DecoderIo;
  /** Most bytes of logits one prefill run may return (default 128 MiB). */
  prefillLogitsBytes?: number;
  /**
   * Another session of the same decoder export (another provider) that runs the prompt; steps
   * then continue on `decoder` from the cache it wrote (the caches are plain CPU tensors between
   * runs). The WebGPU parity test prefills on the CPU: on SwiftShader a page prompt takes
   * minutes, a decode step does not.
   */
  prefillDecoder?: Session;
}

/** What the decoder graph declares: optional inputs, element types, shapes. */
export interface DecoderIo {
  positionIds: boolean;
  numLogitsToKeep: boolean;
  useCacheBranch: boolean;
  /** Element types of inputs_embeds, past_key_values.*, logits, and the embedder's output. */
  embedsType: string;
  kvType: string;
  logitsType: string;
  embedOutType: string;
  /** From the graph when its dims are fixed (else undefined: the config's value is used). */
  layers: number;
  kvHeads?: number;
  headDim?: number;
  hidden?: number;
  vocab?: number;
}

/** Inputs every granite-docling decoder export has; the rest are optional. */
export const REQUIRED_DECODER_INPUTS = [
  'inputs_embeds',
  'attention_mask',
  'past_key_values.0.key',
  'past_key_values.0.value',
] as const;

/** Reads the decoder's interface from the sessions' metadata. */
export function describeDecoder(decoder: Session, embed: Session): DecoderIo {
  const { inputs, outputs } = sessionValues(decoder);
  const embedOut = sessionValues(embed).outputs.get('inputs_embeds') ?? [...sessionValues(embed).outputs.values()][0];
  const fixed = (v: number | string | undefined) => (typeof v === 'number' && v > 0 ? v : undefined);
  const kv = inputs.get('past_key_values.0.key');
  let layers = 0;
  while (inputs.has(`past_key_values.${layers}.key`)) layers++;
  return {
    positionIds: inputs.has('position_ids'),
    numLogitsToKeep: inputs.has('num_logits_to_keep'),
    useCacheBranch: inputs.has('use_cache_branch'),
    embedsType: inputs.get('inputs_embeds')?.type ?? 'float32',
    kvType: kv?.type ?? 'float32',
    logitsType: outputs.get('logits')?.type ?? 'float32',
    embedOutType: embedOut?.type ?? 'float32',
    layers,
    kvHeads: fixed(kv?.shape[1]),
    headDim: fixed(kv?.shape[3]),
    hidden: fixed(inputs.get('inputs_embeds')?.shape[2]),
    vocab: fixed(outputs.get('logits')?.shape[2]),
  };
}

type KvData = Float32Array | Uint16Array;

function allocLike(buf: KvData, n: number): KvData {
  return buf instanceof Uint16Array ? new Uint16Array(n) : new Float32Array(n);
}

/** Time spent in the decoder's runs, for the benchmark's breakdown. */
export interface DecoderTimings {
  embedMs: number;
  decoderMs: number;
  runs: number;
}

function int64(values: number[], dims: number[]): Tensor {
  return new Tensor(
    'int64',
    BigInt64Array.from(values, (v) => BigInt(v)),
    dims,
  );
}

export class DecoderSession {
  /** past_key_values tensors, [layer][0 = key, 1 = value], each [batch, kvHeads, T, headDim]. */
  private kv: Tensor[][] = [];
  /** Per row: 1 for cache entries that are attended to, 0 for padding. */
  private mask: number[][] = [];
  private lastStep: { k: number; lens: number[] } | undefined;
  readonly timings: DecoderTimings = { embedMs: 0, decoderMs: 0, runs: 0 };

  private readonly io: DecoderIo;

  constructor(private readonly model: DecoderModel) {
    this.io = model.io ?? describeDecoder(model.decoder, model.embed);
  }

  get batch(): number {
    return this.mask.length;
  }

  /** Cache length (padded), the same for every row. */
  get length(): number {
    return this.mask[0]?.length ?? 0;
  }

  /**
   * Next position of each row as the graph will number it: the cache length (real export), or
   * the number of unmasked entries when the graph takes `position_ids`.
   */
  positions(): number[] {
    if (!this.io.positionIds) return this.mask.map((m) => m.length);
    return this.mask.map((m) => m.reduce((a, b) => a + b, 0));
  }

  /** True when no row has a masked entry after its first unmasked one (left padding only). */
  holeFree(): boolean {
    return this.mask.every((m) => {
      const first = m.indexOf(1);
      return first < 0 || m.indexOf(0, first) < 0;
    });
  }

  /**
   * True when the cache lives on the GPU (a WebGPU decoder loaded with `deviceCache`): each pass
   * takes the previous pass's `present.*` as they are, with no copy to JavaScript memory and back.
   * Such a cache can only grow: cutting, forking or dropping rows needs it on the CPU.
   */
  get cacheOnDevice(): boolean {
    return this.kv[0]?.[0]?.location === 'gpu-buffer';
  }

  /** The token fed to rows that only pad a batch (finished rows of a device-side cache). */
  get padToken(): number {
    return this.model.padId;
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
    return asFloat32(out.inputs_embeds ?? out[this.model.embed.outputNames[0]]);
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
    rows.forEach((r, i) => {
      const pad = S - lens[i];
      embeds.set(r, (i * S + pad) * H);
      mask.push([...new Array(pad).fill(0), ...new Array(lens[i]).fill(1)]);
    });
    const { kvHeads, headDim, layers } = this.model.shape;
    const kvEmpty = () => (this.io.kvType === 'float16' ? new Uint16Array(0) : new Float32Array(0));
    this.kv = Array.from({ length: layers }, () =>
      [0, 1].map(() => new Tensor(this.io.kvType as 'float32', kvEmpty() as Float32Array, [b, kvHeads, 0, headDim])),
    );
    // With num_logits_to_keep one run returns only the last position's logits. Without it (the
    // real export) every position's logits come back, so the prompt goes in chunks small enough
    // that a chunk's logits stay within the budget; only the wanted ones are kept.
    const V = this.io.vocab ?? this.model.shape.vocab ?? 100352;
    const budget = this.model.prefillLogitsBytes ?? 128 * 1024 * 1024;
    const chunk = this.io.numLogitsToKeep && !opts.all ? S : Math.max(16, Math.floor(budget / (b * V * 4)));
    const kept: Float32Array[][] = mask.map(() => []);
    this.mask = mask.map(() => []);
    for (let c0 = 0; c0 < S; c0 += chunk) {
      const c1 = Math.min(S, c0 + chunk);
      const n = c1 - c0;
      const part = new Float32Array(b * n * H);
      const pos: number[] = [];
      for (let i = 0; i < b; i++) {
        part.set(embeds.subarray((i * S + c0) * H, (i * S + c1) * H), i * n * H);
        const pad = S - lens[i];
        for (let j = c0; j < c1; j++) pos.push(j < pad ? 1 : j - pad);
      }
      this.mask = mask.map((m) => m.slice(0, c1));
      const keep = opts.all ? n : c1 === S ? 1 : 0;
      const logits = await this.run(part, pos, n, keep, this.model.prefillDecoder);
      // Copies: the runtime's output buffer is not kept across runs.
      logits.forEach((rowLogits, i) => kept[i].push(...rowLogits.map((l) => l.slice())));
    }
    this.lastStep = undefined;
    return kept.map((rowLogits, i) => (opts.all ? rowLogits.slice(S - lens[i]) : [rowLogits[rowLogits.length - 1]]));
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
      // Shorter rows are padded on the right (masked, then cut by keepPath/keepPaths/truncate),
      // so their real tokens keep contiguous positions.
      for (let i = 0; i < k; i++) pos.push(next[r] + Math.min(i, Math.max(0, t.length - 1)));
      this.mask[r].push(...new Array(t.length).fill(1), ...new Array(k - t.length).fill(0));
    });
    const embeds = await this.embed(padded);
    const logits = await this.run(embeds, pos, k);
    this.lastStep = { k, lens: tokens.map((t) => t.length) };
    return logits.map((l, r) => l.slice(0, tokens[r].length));
  }

  /** Keeps row `row` alone, with only the first `keep` positions of the last `step`. */
  keepPath(row: number, keep: number): void {
    if (!this.lastStep) throw new Error('keepPath: no step to keep a path of');
    if (keep < 0 || keep > this.lastStep.lens[row])
      throw new Error(`keepPath: cannot keep ${keep} of ${this.lastStep.lens[row]} positions`);
    const len = this.length - this.lastStep.k + keep;
    this.reshapeCache([row], len);
  }

  /**
   * Keeps several rows (in the given order), each with the first `keep` positions of the last
   * `step`: the accepted chains of several sequences decoded as one batch (speculative Stage 1).
   * One length for all rows: a row that accepted more would need a masked hole in the others,
   * which the real export's positions (from the cache length) do not skip. The adapter
   * (server/vlm/decoderTarget.ts) keeps the shortest accepted length and feeds the rest
   * of each longer row again at the start of its next step.
   */
  keepPaths(rows: number[], keep: number): void {
    const last = this.lastStep;
    if (!last) throw new Error('keepPaths: no step to keep paths of');
    if (rows.length === 0) throw new Error('keepPaths: no rows');
    rows.forEach((r) => {
      if (keep < 0 || keep > last.lens[r])
        throw new Error(`keepPaths: cannot keep ${keep} of ${last.lens[r]} positions of row ${r}`);
    });
    this.reshapeCache(rows, this.length - last.k + keep);
  }

  /** Cuts every row's cache back to its first `len` positions. */
  truncate(len: number): void {
    if (len > this.length) throw new Error(`truncate: cache has ${this.length} positions, not ${len}`);
    this.reshapeCache(
      this.mask.map((_, i) => i),
      len,
    );
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
    this.releaseDeviceCache(this.kv);
    let x = seed >>> 0;
    this.kv = Array.from({ length: layers }, () =>
      [0, 1].map(() => {
        const d = new Float32Array(kvHeads * len * headDim);
        for (let i = 0; i < d.length; i++) {
          x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
          d[i] = (x / 4294967296 - 0.5) * 0.2;
        }
        return this.kvTensor(this.io.kvType === 'float16' ? floatData(d, 'float16') : d, [1, kvHeads, len, headDim]);
      }),
    );
    this.mask = [new Array(len).fill(1)];
    this.lastStep = undefined;
  }

  /**
   * For experiments: a copy of the cache (every layer's key and value as float32, with their
   * dims) and the mask, so a cache built once (a page prompt prefilled on one provider: minutes on
   * SwiftShader) can be saved and loaded into sessions on any provider (`restoreCache`).
   */
  snapshotCache(): { mask: number[][]; kv: { dims: number[]; data: Float32Array }[][] } {
    if (this.cacheOnDevice) throw new Error('snapshotCache: the decoder cache is on the GPU');
    return {
      mask: this.mask.map((m) => m.slice()),
      kv: this.kv.map((pair) => pair.map((t) => ({ dims: [...t.dims], data: asFloat32(t).slice() }))),
    };
  }

  /** Replaces the cache with a `snapshotCache()` (converted to the decoder's element type). */
  restoreCache(snap: { mask: number[][]; kv: { dims: number[]; data: Float32Array }[][] }): void {
    if (snap.kv.length !== this.model.shape.layers)
      throw new Error(`restoreCache: ${snap.kv.length} layers given, the decoder has ${this.model.shape.layers}`);
    this.releaseDeviceCache(this.kv);
    this.kv = snap.kv.map((pair) =>
      pair.map((p) =>
        this.kvTensor(this.io.kvType === 'float16' ? floatData(p.data, 'float16') : p.data.slice(), p.dims),
      ),
    );
    this.mask = snap.mask.map((m) => m.slice());
    this.lastStep = undefined;
  }

  /** Drops the cache (GPU buffers freed now, not when collected). */
  dispose(): void {
    this.releaseDeviceCache(this.kv);
    this.kv = [];
    this.mask = [];
    this.lastStep = undefined;
  }

  /** Cache rebuilds that moved data inside the existing buffers (no allocation), and that copied. */
  readonly cacheOps = { inPlace: 0, copied: 0 };

  private releaseDeviceCache(kv: Tensor[][]): void {
    for (const pair of kv) for (const t of pair) if (t.location === 'gpu-buffer') t.dispose();
  }

  private reshapeCache(rows: number[], len: number): void {
    const { kvHeads, headDim } = this.model.shape;
    const T = this.length;
    const same = len === T && rows.length === this.batch && rows.every((r, i) => r === i);
    if (!same && this.cacheOnDevice)
      throw new Error(
        'the decoder cache is on the GPU (a model loaded with deviceCache decodes greedily only): it cannot be cut, forked or narrowed',
      );
    // Rows kept in increasing order and no longer than before (cut a rejected draft, keep one
    // accepted chain of a fork, retire finished rows): compacted inside the same buffers. Every
    // block moves to an offset at or before its source and blocks move in increasing order, so
    // no block is overwritten before it is moved (copyWithin has memmove semantics). Tensors then
    // view the front of the buffer. Only forks (a row repeated) allocate.
    const inPlace = !same && len <= T && rows.every((r, i) => r >= i && (i === 0 || r > rows[i - 1]));
    if (inPlace) {
      this.kv = this.kv.map((pair) =>
        pair.map((t) => {
          const buf = t.data as KvData;
          rows.forEach((r, i) => {
            for (let h = 0; h < kvHeads; h++) {
              const from = (r * kvHeads + h) * T * headDim;
              const to = (i * kvHeads + h) * len * headDim;
              if (from !== to) buf.copyWithin(to, from, from + len * headDim);
            }
          });
          return this.kvTensor(buf.subarray(0, rows.length * kvHeads * len * headDim), [
            rows.length,
            kvHeads,
            len,
            headDim,
          ]);
        }),
      );
      this.mask = rows.map((r) => this.mask[r].slice(0, len));
      this.cacheOps.inPlace++;
    } else if (!same) {
      this.cacheOps.copied++;
      this.kv = this.kv.map((pair) =>
        pair.map((t) => {
          const src = t.data as KvData;
          const dst = allocLike(src, rows.length * kvHeads * len * headDim);
          rows.forEach((r, i) => {
            for (let h = 0; h < kvHeads; h++) {
              const from = (r * kvHeads + h) * T * headDim;
              dst.set(src.subarray(from, from + len * headDim), (i * kvHeads + h) * len * headDim);
            }
          });
          return this.kvTensor(dst, [rows.length, kvHeads, len, headDim]);
        }),
      );
      this.mask = rows.map((r) => this.mask[r].slice(0, len));
    }
    this.lastStep = undefined;
  }

  private kvTensor(data: KvData, dims: number[]): Tensor {
    return data instanceof Uint16Array ? new Tensor('float16', data, dims) : new Tensor('float32', data, dims);
  }

  /**
   * One decoder run over k new positions (`embeds`: b × k × hidden, float32); returns logits per
   * row for the last `keep` positions (the graph returns all k unless it takes num_logits_to_keep).
   */
  private async run(
    embeds: Float32Array,
    pos: number[],
    k: number,
    keep = k,
    decoder: Session = this.model.decoder,
  ): Promise<Float32Array[][]> {
    const b = this.batch;
    const T = this.length;
    const io = this.io;
    const feeds: Record<string, Tensor> = {
      inputs_embeds: new Tensor(io.embedsType as 'float32', floatData(embeds, io.embedsType) as Float32Array, [
        b,
        k,
        this.model.shape.hidden,
      ]),
      attention_mask: int64(this.mask.flat(), [b, T]),
    };
    // Optional inputs (absent from the real export): onnxruntime wants every declared input fed
    // and rejects undeclared ones, so each is sent only when the graph declares it.
    if (io.positionIds) feeds.position_ids = int64(pos, [b, k]);
    if (io.numLogitsToKeep)
      feeds.num_logits_to_keep = new Tensor('int64', BigInt64Array.from([BigInt(Math.max(1, keep))]), []);
    if (io.useCacheBranch) feeds.use_cache_branch = new Tensor('bool', Uint8Array.from([T - k > 0 ? 1 : 0]), [1]);
    this.kv.forEach((pair, l) => {
      feeds[`past_key_values.${l}.key`] = pair[0];
      feeds[`past_key_values.${l}.value`] = pair[1];
    });
    const t0 = performance.now();
    const out = await decoder.run(feeds);
    this.timings.decoderMs += performance.now() - t0;
    this.timings.runs++;
    // The pass has read the old cache: on the device its buffers are freed now (the new
    // `present.*` hold every position), in JavaScript memory the collector takes them.
    this.releaseDeviceCache(this.kv);
    this.kv = this.kv.map((_, l) => [out[`present.${l}.key`], out[`present.${l}.value`]]);
    const logits = out.logits;
    const V = logits.dims[2];
    const L = logits.dims[1];
    this.vocab = V;
    const data = asFloat32(logits);
    const res: Float32Array[][] = [];
    for (let r = 0; r < b; r++) {
      const row: Float32Array[] = [];
      for (let i = Math.max(0, L - keep); i < L; i++) row.push(data.subarray((r * L + i) * V, (r * L + i + 1) * V));
      res.push(row);
    }
    return res;
  }
}
