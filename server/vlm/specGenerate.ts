/**
 * Speculative generation of one page on a loaded `VlmModel`: the page's prompt (image features
 * spliced in) is decoded by server/speculative's loop against the pipeline's drafts, through the
 * same ONNX decoder sessions greedy decoding uses (DecoderTarget). Greedy acceptance (τ = 1)
 * keeps the output token-for-token what `VlmModel.generate` writes; only the number of decoder
 * passes changes.
 *
 * `hsd` also decodes every region crop (Stage 1, its class prompt and its own draft) and offers
 * the wrapped region outputs as drafts of the page decode (Stage 2); see server/speculative/hsd.ts.
 */
import type { DecoderSession } from './decoder';
import { noTimings, type GenerateOutput, type GenerateRequest, type Timings, type VlmModel } from './model';
import type { LoopGuardOptions } from '../util/loopGuard';
import { DecoderTargetBatch, DecoderTargetSession } from './decoderTarget';
import { decodePage, type PageDecodeStats, type RegionJob } from '../speculative/hsd';
import { tokenInfoFor } from './loadTarget';
import type { DecodeOptions, TargetModel, TargetSession, TokenInfo } from '../speculative/types';

export interface SpecRegionRequest {
  req: GenerateRequest;
  /** The pipeline's text for this region, in the form the region prompt makes the model write. */
  drafts: string[];
  /** The region's Stage 1 output text → a page-level DocTags block ('' when unusable). */
  wrap(text: string): string;
}

export interface SpecGenerateOptions {
  mode: 'page' | 'hsd';
  /** Matcher and verification settings (K, chains, verify, …; from specDefaultsFor). */
  decode: DecodeOptions;
  /** The pipeline's page drafts as DocTags text. */
  drafts: string[];
  /** Stage 1 requests (hsd only). */
  regions?: SpecRegionRequest[];
  maxNewTokens?: number;
  loopGuard?: LoopGuardOptions | false;
  signal?: { readonly aborted: boolean };
  onToken?: (id: number) => void;
}

export interface SpecGenerateResult {
  output: GenerateOutput;
  timings: Timings;
  stats: PageDecodeStats;
}

const infos = new WeakMap<VlmModel, TokenInfo>();

/** The matcher's token classes for a model's tokenizer (location and stop tokens), built once. */
export function tokenInfoOf(model: VlmModel): TokenInfo {
  let info = infos.get(model);
  if (!info) {
    info = tokenInfoFor(model.tokenizer, [...model.stopIds]);
    infos.set(model, info);
  }
  return info;
}

export async function generateSpeculative(
  model: VlmModel,
  req: GenerateRequest,
  o: SpecGenerateOptions,
): Promise<SpecGenerateResult> {
  const timings = noTimings();
  // Prompt ids → the image features to splice into their embeddings (looked up by identity:
  // decodePage hands the same arrays back to the target's prefill).
  const features = new Map<readonly number[], Float32Array>();
  const page = await model.prepare(req, timings, o.signal);
  features.set(page.ids, page.features);
  const encode = (text: string) => (text ? model.tokenizer.encode(text) : []);
  const regions: RegionJob[] = [];
  if (o.mode === 'hsd') {
    for (const r of o.regions ?? []) {
      const p = await model.prepare(r.req, timings, o.signal);
      features.set(p.ids, p.features);
      regions.push({
        prompt: p.ids,
        drafts: r.drafts.map(encode).filter((d) => d.length > 0),
        wrap: (out) => encode(r.wrap(model.tokenizer.decode([...out]))),
      });
    }
  }
  const embeds = (s: DecoderSession, ids: readonly number[]) => {
    const f = features.get(ids);
    if (!f) throw new Error('speculative generation: a prompt without prepared image features');
    return model.promptEmbeds(s, [...ids], f);
  };
  // The page session times its prefill, so the result's timings split prefill from decoding as
  // greedy generation's do (hsd's Stage 1 prefills count as decoding).
  const open = (): TargetSession => {
    const s = new DecoderTargetSession(model.newSession(), embeds);
    return {
      get vocabSize() {
        return s.vocabSize;
      },
      prefill: async (p) => {
        const t = performance.now();
        try {
          return await s.prefill(p);
        } finally {
          timings.prefillMs += performance.now() - t;
        }
      },
      step: (c) => s.step(c),
      keep: (c, l) => s.keep(c, l),
      dispose: () => s.dispose(),
    };
  };
  const target: TargetModel = { open, openBatch: () => new DecoderTargetBatch(model.newSession(), embeds) };
  const t0 = performance.now();
  const prefill0 = timings.prefillMs;
  const res = await decodePage(
    target,
    { prompt: page.ids, drafts: o.drafts.map(encode).filter((d) => d.length > 0), regions },
    tokenInfoOf(model),
    o.mode,
    {
      ...o.decode,
      tau: 1,
      temperature: 0,
      maxNewTokens: o.maxNewTokens ?? model.config.maxNewTokens,
      loopGuard: o.loopGuard,
      signal: o.signal,
      onToken: o.onToken,
    },
  );
  timings.decodeMs += performance.now() - t0 - (timings.prefillMs - prefill0);
  timings.newTokens = res.tokens.length;
  const output: GenerateOutput = {
    text: model.tokenizer.decode(res.tokens),
    tokens: res.tokens,
    reason: res.reason ?? 'max',
  };
  if (res.reason === 'loop') output.beforeLoop = model.tokenizer.decode(res.tokens.slice(0, res.loopStart));
  return { output, timings, stats: res.stats };
}
