/**
 * The loaded VLM: three onnxruntime sessions (vision encoder, token embeddings, merged decoder),
 * the tokenizer and the configs; turns a batch of (image, instruction) requests into DocTags.
 * Runs where `session.run` may block (the VLM worker thread, or a test/benchmark process).
 *
 * Flow per request: preprocess (tiles) → vision encoder → prompt ids with the image expanded →
 * token embeddings with the `<image>` positions replaced by the image features, row by row →
 * one left-padded prefill for the batch → greedy decoding with the KV cache → text.
 */
import { Tensor, createSession, providerSummary, type LoadedSession } from '../onnx/runtime';
import { loadVlmConfig, modelError, type VlmConfig } from './config';
import { asFloat32, floatData, sessionValues } from '../onnx/tensorTypes';
import { describeAdapter, webgpuAdapterInfo, type WebGpuAdapterInfo } from '../onnx/webgpuAdapter';
import { DecoderSession, describeDecoder, REQUIRED_DECODER_INPUTS, type DecoderIo } from './decoder';
import { greedyGenerate, type StopReason } from './generate';
import { CancelledError } from '../errors';
import type { LoopGuardOptions } from '../util/loopGuard';
import {
  imagePromptString,
  preprocessImage,
  releaseTiles,
  type ImageInput,
  type PreprocessedImage,
} from './preprocess';
import { chatPrompt } from './prompt';
import { Tokenizer } from './tokenizer';

export interface VlmLoadOptions {
  modelsDir: string;
  providers?: string[];
  dtype?: string;
  threads?: number;
  log?: (msg: string) => void;
  /**
   * WebGPU only: the decoder's cache (`present.*`) stays on the device between passes instead of
   * crossing to JavaScript memory and back each pass. Such a model decodes greedily only (its
   * sessions cannot cut, fork or download the cache: onnxruntime-node 1.30 aborts the process on
   * `getData()` of a GPU tensor), which is what Folio runs on WebGPU (`specModeFor`).
   */
  deviceCache?: boolean;
}

export interface GenerateRequest {
  image: ImageInput;
  /** Pixel crop of the image (regions). */
  crop?: { left: number; top: number; width: number; height: number };
  instruction: string;
  /** `<layout>…</layout>` block or ''. */
  prior?: string;
}

export interface GenerateOutput {
  text: string;
  tokens: number[];
  reason: StopReason;
  /** Text generated before the loop began, when the loop guard fired. */
  beforeLoop?: string;
}

export interface Timings {
  preprocessMs: number;
  visionMs: number;
  prefillMs: number;
  decodeMs: number;
  promptTokens: number;
  newTokens: number;
}

/** Timings before anything ran: what each page's (and each benchmark's) sums start from. */
export function noTimings(): Timings {
  return { preprocessMs: 0, visionMs: 0, prefillMs: 0, decodeMs: 0, promptTokens: 0, newTokens: 0 };
}

export class VlmModel {
  private constructor(
    readonly config: VlmConfig,
    readonly tokenizer: Tokenizer,
    private readonly vision: LoadedSession,
    private readonly embedS: LoadedSession,
    private readonly decoderS: LoadedSession,
    readonly stopIds: Set<number>,
    readonly padId: number,
    /** The decoder's interface as its session declares it (optional inputs, element types, shapes). */
    readonly decoderIo: DecoderIo,
  ) {}

  /** Provider that runs the decoder (the one reported). */
  get provider(): string {
    return this.decoderS.provider;
  }

  /**
   * The WebGPU adapter as far as Folio can tell (server/onnx/webgpuAdapter.ts: onnxruntime-node
   * does not report it), when the decoder runs on WebGPU.
   */
  get adapter(): WebGpuAdapterInfo | undefined {
    if (this.decoderS.provider !== 'webgpu') return undefined;
    return (this.adapterInfo ??= webgpuAdapterInfo());
  }
  private adapterInfo: WebGpuAdapterInfo | undefined;

  get fallbacks(): { provider: string; reason: string }[] {
    return [...this.vision.failures, ...this.embedS.failures, ...this.decoderS.failures];
  }

  static async load(opts: VlmLoadOptions): Promise<VlmModel> {
    const config = loadVlmConfig(opts.modelsDir, opts.dtype ?? 'fp32');
    const tokenizer = Tokenizer.fromFile(config.files.tokenizer);
    const providers = opts.providers && opts.providers.length ? opts.providers : ['cuda', 'webgpu', 'cpu'];
    // Providers are probed quietly (runtime.ts checks provider libraries and the Vulkan loader
    // before asking onnxruntime); what was chosen and why is said once, after loading.
    const open = async (path: string, deviceOutputs?: string[]) => {
      try {
        return await createSession(path, { providers, threads: opts.threads, deviceOutputs });
      } catch (e) {
        throw modelError(
          `Cannot load ${path}: ${(e as Error).message.split('\n')[0]}. The file may be damaged; run "Folio: Download models" or \`folio models pull\` again.`,
        );
      }
    };
    const vision = await open(config.files.vision);
    const embed = await open(config.files.embed);
    const decoder = await open(
      config.files.decoder,
      opts.deviceCache
        ? Array.from({ length: config.text.layers }, (_, l) => [`present.${l}.key`, `present.${l}.value`]).flat()
        : undefined,
    );
    // Only the inputs the real export has are required (decoder: inputs_embeds, attention_mask,
    // past_key_values.*); position_ids, num_logits_to_keep and use_cache_branch are fed when a
    // graph declares them (decoder.ts).
    for (const [s, file, names] of [
      [vision, config.files.vision, ['pixel_values', 'pixel_attention_mask']],
      [embed, config.files.embed, ['input_ids']],
      [decoder, config.files.decoder, REQUIRED_DECODER_INPUTS],
    ] as const) {
      for (const n of names) {
        if (!s.session.inputNames.includes(n))
          throw modelError(`${file} has no input "${n}"; it is not a granite-docling ONNX export.`);
      }
    }
    const io = describeDecoder(decoder.session, embed.session);
    const t = config.text;
    // The graph's own dimensions rule where it fixes them (a config that disagrees is reported).
    for (const [what, graph, cfg] of [
      ['layers', io.layers, t.layers],
      ['KV heads', io.kvHeads, t.kvHeads],
      ['head size', io.headDim, t.headDim],
      ['hidden size', io.hidden, t.hidden],
    ] as const) {
      if (graph !== undefined && graph !== cfg)
        opts.log?.(`VLM: ${config.files.decoder} has ${what} ${graph}, config.json says ${cfg}; using the graph's`);
    }
    const stop = new Set<number>(config.eosIds);
    for (const t of ['</doctag>', '<|end_of_text|>']) {
      const id = tokenizer.tryId(t);
      if (id !== undefined) stop.add(id);
    }
    const pad = tokenizer.tryId('<|end_of_text|>') ?? config.eosIds[0] ?? 0;
    opts.log?.(
      `VLM: ${providerSummary(decoder.provider, [...vision.failures, ...embed.failures, ...decoder.failures])}`,
    );
    opts.log?.(
      `VLM: loaded ${config.dir} (${config.dtype}: ${io.kvType} cache) on ${decoder.provider}${io.positionIds ? ' (decoder takes position_ids)' : ''}`,
    );
    if (decoder.provider === 'webgpu') opts.log?.(`VLM: WebGPU adapter: ${describeAdapter(webgpuAdapterInfo())}`);
    return new VlmModel(config, tokenizer, vision, embed, decoder, stop, pad, io);
  }

  newSession(): DecoderSession {
    const t = this.config.text;
    const io = this.decoderIo;
    return new DecoderSession({
      decoder: this.decoderS.session,
      embed: this.embedS.session,
      shape: {
        layers: io.layers || t.layers,
        kvHeads: io.kvHeads ?? t.kvHeads,
        headDim: io.headDim ?? t.headDim,
        hidden: io.hidden ?? t.hidden,
        vocab: io.vocab ?? t.vocab,
      },
      padId: this.padId,
      io,
      prefillDecoder: this.promptModel?.decoderS.session,
    });
  }

  /**
   * Runs the vision encoder and the prompt's prefill on `other` (the same files loaded on another
   * provider) and every decode pass (steps, verification passes, chains) here. The WebGPU parity
   * test uses it with the CPU: on SwiftShader a page's vision (17 tiles) and prompt (1,142
   * tokens) take minutes, its decode passes seconds (docs/vlm.md "WebGPU").
   */
  promptOn(other: VlmModel | undefined): void {
    if (other && other.decoderIo.kvType !== this.decoderIo.kvType)
      throw new Error('promptOn: the two decoders keep their caches in different element types');
    this.promptModel = other;
  }
  private promptModel: VlmModel | undefined;

  /** Width of the features the embedder and vision encoder produce (the decoder's hidden size). */
  get hidden(): number {
    return this.decoderIo.hidden ?? this.config.text.hidden;
  }

  /**
   * Tiles per vision-encoder run. On the CPU one tile at a time: a run over a whole page (17
   * images) holds every tile's attention scores at once (12 heads × 1024² floats = 48 MiB per tile
   * and layer; +2 GiB measured on the full-size model) and is no faster, since each tile's
   * matrices (1024 rows) already keep the cores busy. Accelerators take the page in one run.
   */
  get visionBatch(): number {
    return this.visionBatchOverride ?? (this.vision.provider === 'cpu' ? 1 : 32);
  }
  visionBatchOverride: number | undefined;

  /** Vision encoder on one preprocessed image → features [images × seqLen × hidden]. */
  async encodeImage(pre: PreprocessedImage): Promise<Float32Array> {
    if (this.promptModel) return this.promptModel.encodeImage(pre);
    const n = pre.grid.images;
    const T = pre.tileSize;
    const per = 3 * T * T;
    const step = Math.max(1, this.visionBatch);
    const parts: Float32Array[] = [];
    const pixelType = sessionValues(this.vision.session).inputs.get('pixel_values')?.type ?? 'float32';
    for (let i = 0; i < n; i += step) {
      const c = Math.min(step, n - i);
      const px = floatData(pre.pixelValues.subarray(i * per, (i + c) * per), pixelType) as Float32Array;
      const out = await this.vision.session.run({
        pixel_values: new Tensor(pixelType as 'float32', px, [1, c, 3, T, T]),
        pixel_attention_mask: new Tensor('bool', new Uint8Array(c * T * T).fill(1), [1, c, T, T]),
      });
      parts.push(asFloat32(out.image_features ?? out[this.vision.session.outputNames[0]]));
    }
    if (parts.length === 1) return parts[0];
    const all = new Float32Array(parts.reduce((a, p) => a + p.length, 0));
    let o = 0;
    for (const p of parts) {
      all.set(p, o);
      o += p.length;
    }
    return all;
  }

  /** Prompt token ids for an image grid and an instruction. */
  promptIds(pre: PreprocessedImage, instruction: string, prior = ''): number[] {
    const image = imagePromptString(pre.grid.rows, pre.grid.cols, this.config.imageSeqLen);
    return this.tokenizer.encode(chatPrompt(image, instruction, prior));
  }

  /** Embeddings of the prompt with the image features written over the `<image>` positions. */
  async promptEmbeds(session: DecoderSession, ids: number[], features: Float32Array): Promise<Float32Array> {
    const H = this.hidden;
    const embeds = (await session.embed([ids])).slice();
    const imageId = this.config.imageTokenId ?? this.tokenizer.id('<image>');
    let f = 0;
    for (let i = 0; i < ids.length; i++) {
      if (ids[i] !== imageId) continue;
      if ((f + 1) * H > features.length)
        throw modelError(
          `The prompt has more <image> tokens than the vision encoder gave features (${features.length / H}).`,
        );
      embeds.set(features.subarray(f * H, (f + 1) * H), i * H);
      f++;
    }
    if (f * H !== features.length)
      throw modelError(`The vision encoder gave ${features.length / H} feature rows for ${f} <image> tokens.`);
    return embeds;
  }

  /**
   * Preprocess and vision-encode one request and build its prompt ids (the `<image>` positions
   * still to be replaced by `features`). A cancelled request stops before each costly phase.
   */
  async prepare(
    r: GenerateRequest,
    timings: Timings,
    signal?: { readonly aborted: boolean },
  ): Promise<{ ids: number[]; features: Float32Array }> {
    const check = () => {
      if (signal?.aborted) throw new CancelledError('the VLM generation');
    };
    check();
    let t = performance.now();
    const pre = await preprocessImage(r.image, this.config.preprocess, r.crop);
    timings.preprocessMs += performance.now() - t;
    let features: Float32Array;
    try {
      check();
      t = performance.now();
      features = await this.encodeImage(pre);
      timings.visionMs += performance.now() - t;
    } finally {
      // Every vision `run` over the tiles has resolved (onnxruntime-node 1.30 runs synchronously
      // inside `run`'s callback and keeps no input afterwards): their buffer serves a later page.
      releaseTiles(pre);
    }
    const ids = this.promptIds(pre, r.instruction, r.prior);
    timings.promptTokens += ids.length;
    return { ids, features };
  }

  /** Runs a batch of requests together (left-padded) and decodes each greedily. */
  async generate(
    reqs: GenerateRequest[],
    opts: {
      maxNewTokens?: number;
      loopGuard?: LoopGuardOptions | false;
      signal?: { readonly aborted: boolean };
      onToken?: (row: number, id: number) => void;
    } = {},
  ): Promise<{ outputs: GenerateOutput[]; timings: Timings }> {
    const timings = noTimings();
    const session = this.newSession();
    try {
      const rows: Float32Array[] = [];
      // A cancelled request stops before each costly phase, not only between decoder steps.
      const check = () => {
        if (opts.signal?.aborted) throw new CancelledError('the VLM generation');
      };
      for (const r of reqs) {
        const { ids, features } = await this.prepare(r, timings, opts.signal);
        const t = performance.now();
        rows.push(await this.promptEmbeds(session, ids, features));
        timings.prefillMs += performance.now() - t;
      }
      check();
      let t = performance.now();
      const first = await session.prefill(rows);
      timings.prefillMs += performance.now() - t;
      t = performance.now();
      const res = await greedyGenerate(
        session,
        first.map((l) => l[0]),
        {
          maxNewTokens: opts.maxNewTokens ?? this.config.maxNewTokens,
          stopIds: this.stopIds,
          loopGuard: opts.loopGuard,
          signal: opts.signal,
          onToken: opts.onToken,
        },
      );
      timings.decodeMs += performance.now() - t;
      const outputs = res.tokens.map((tokens, i): GenerateOutput => {
        timings.newTokens += tokens.length;
        const out: GenerateOutput = { text: this.tokenizer.decode(tokens), tokens, reason: res.reasons[i] };
        if (res.reasons[i] === 'loop') out.beforeLoop = this.tokenizer.decode(tokens.slice(0, res.loopStart[i]));
        return out;
      });
      return { outputs, timings };
    } finally {
      session.dispose();
    }
  }

  async release(): Promise<void> {
    await Promise.all([this.vision, this.embedS, this.decoderS].map((s) => s.session.release()));
  }
}
