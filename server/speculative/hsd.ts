/**
 * The three decoding modes for a page:
 *   ar   — plain autoregressive decoding of the page (one pass per token);
 *   page — page-level speculation: the page verified against the pipeline's page drafts;
 *   hsd  — hierarchical: Stage 1 decodes every region (a crop with its class-specific prompt) as
 *          one lock-step batch, each region verifying its own pipeline draft; Stage 2 decodes the
 *          page with the Stage 1 outputs (wrapped back into DocTags blocks) as an unordered draft
 *          set, plus the pipeline's page draft as a fallback.
 *
 * Overlap: the page session's prefill (vision encoding + prompt) starts before anything else is
 * awaited, and the drafts arrive as promises, so drafting/OCR runs beside it instead of before it.
 */
import { DEFAULT_MATCH, DraftIndex } from './draftIndex';
import { SpecDecoder, checkAborted, decodeOne } from './decode';
import type {
  DecodeOptions,
  DecodeResult,
  DecodeStats,
  TargetBatch,
  TargetModel,
  TargetSession,
  TokenInfo,
  SpecMode,
} from './types';

type Drafts = readonly (readonly number[])[];

export interface RegionJob {
  /** Prompt for the region crop (class-specific instruction + image tokens). */
  prompt: readonly number[];
  /** The pipeline's draft for this region, in the form the region prompt makes the model write. */
  drafts: Drafts;
  /** Turns this region's Stage 1 output into a page-level DocTags block (tag, locations, content). */
  wrap(output: readonly number[]): number[];
}

export interface PageJob {
  prompt: readonly number[];
  /** The pipeline's page drafts (DocTags blocks in reading order, tokenized). */
  drafts: Drafts | Promise<Drafts>;
  /** Stage 1 jobs; needed for `hsd`. */
  regions?: readonly RegionJob[] | Promise<readonly RegionJob[]>;
}

export interface PageDecodeStats extends DecodeStats {
  /** Lock-step batched passes of Stage 1 (0 unless `hsd`). */
  stage1Passes: number;
  /** Passes of the page-level decode. */
  stage2Passes: number;
}

export interface PageDecodeResult {
  tokens: number[];
  /** 'loop': the repetition guard stopped the page decode (see SpecDecoder). */
  reason?: 'stop' | 'max' | 'loop';
  loopStart?: number;
  stats: PageDecodeStats;
  /** Stage 1 outputs per region (hsd only). */
  regionOutputs?: number[][];
}

/** Decode several sequences in lock-step: one batched model pass per round. */
export async function decodeBatch(
  model: TargetModel,
  jobs: readonly { prompt: readonly number[]; drafts: Drafts }[],
  info: TokenInfo,
  opts: DecodeOptions = {},
): Promise<{ results: DecodeResult[]; rounds: number }> {
  // One batch (one decoder run per round for all sequences) unless told not to: on a CPU a
  // batch is as compute-bound as its sequences one by one, and pads every prompt to the longest.
  if (model.openBatch && jobs.length > 0 && opts.stage1Batched !== false)
    return decodeRows(model.openBatch(), jobs, info, opts);
  const sessions: TargetSession[] = jobs.map(() => model.open());
  const firsts = await Promise.all(jobs.map((j, i) => sessions[i].prefill(j.prompt)));
  const decs = jobs.map((j, i) => {
    const index =
      j.drafts.length > 0 ? new DraftIndex(j.drafts, info, opts.n ?? DEFAULT_MATCH.n, opts.calibrateBoxes) : undefined;
    const d = new SpecDecoder(info, index, opts);
    d.start(firsts[i]);
    return d;
  });
  let rounds = 0;
  try {
    for (;;) {
      const active = decs.map((d, i) => ({ d, i })).filter((x) => !x.d.done);
      if (active.length === 0) break;
      checkAborted(opts);
      const reqs = active.map(({ d, i }) => ({ session: sessions[i], chains: d.propose() }));
      const scored = model.stepMany
        ? await model.stepMany(reqs)
        : await Promise.all(reqs.map((r) => r.session.step(r.chains)));
      rounds++;
      active.forEach(({ d, i }, k) => {
        const { chain, keep } = d.accept(scored[k], reqs[k].chains);
        sessions[i].keep(chain, keep);
      });
    }
  } finally {
    for (const s of sessions) s.dispose?.();
  }
  return {
    results: decs.map((d) => ({ tokens: d.tokens, stats: d.stats, reason: d.reason, loopStart: d.loopStart })),
    rounds,
  };
}

/** `decodeBatch` on a real batch: all sequences are rows of one decoder run per round. */
async function decodeRows(
  batch: TargetBatch,
  jobs: readonly { prompt: readonly number[]; drafts: Drafts }[],
  info: TokenInfo,
  opts: DecodeOptions,
): Promise<{ results: DecodeResult[]; rounds: number }> {
  try {
    const firsts = await batch.prefill(jobs.map((j) => j.prompt));
    const decs = jobs.map((j, i) => {
      const index =
        j.drafts.length > 0
          ? new DraftIndex(j.drafts, info, opts.n ?? DEFAULT_MATCH.n, opts.calibrateBoxes)
          : undefined;
      const d = new SpecDecoder(info, index, opts);
      d.start(firsts[i]);
      return d;
    });
    /** Row order of the batch: indices into `decs` of the live sequences. */
    let live = decs.map((_, i) => i).filter((i) => !decs[i].done);
    if (live.length !== decs.length) batch.retire(decs.map((d) => !d.done));
    let rounds = 0;
    while (live.length > 0) {
      checkAborted(opts);
      const chains = live.map((i) => decs[i].propose());
      const scored = await batch.step(chains);
      rounds++;
      batch.keep(live.map((i, s) => decs[i].accept(scored[s], chains[s])));
      const still = live.map((i) => !decs[i].done);
      if (still.some((x) => !x)) {
        batch.retire(still);
        live = live.filter((_, s) => still[s]);
      }
    }
    return {
      results: decs.map((d) => ({ tokens: d.tokens, stats: d.stats, reason: d.reason, loopStart: d.loopStart })),
      rounds,
    };
  } finally {
    batch.dispose();
  }
}

export async function decodePage(
  model: TargetModel,
  job: PageJob,
  info: TokenInfo,
  mode: SpecMode,
  opts: DecodeOptions = {},
): Promise<PageDecodeResult> {
  const session = model.open();
  try {
    if (mode === 'ar' || mode === 'page') {
      const r = await decodeOne(session, job.prompt, mode === 'ar' ? undefined : job.drafts, info, opts);
      return {
        tokens: r.tokens,
        reason: r.reason,
        loopStart: r.loopStart,
        stats: { ...r.stats, stage1Passes: 0, stage2Passes: r.stats.passes },
      };
    }
    // hsd: start the page prefill now; Stage 1 runs while it is under way.
    const prefill = session.prefill(job.prompt);
    const regions = (await job.regions) ?? [];
    // The streamer reports the page's tokens only, not the regions' Stage 1 outputs.
    const stage1 = await decodeBatch(model, regions, info, { ...opts, onToken: undefined });
    const regionOutputs = stage1.results.map((r) => stripStop(r.tokens, info));
    const stage2Drafts: number[][] = regions.map((r, i) => r.wrap(regionOutputs[i]));
    const pageDrafts = await job.drafts;
    const first = await prefill;
    const all = [...stage2Drafts, ...pageDrafts].filter((d) => d.length > 0);
    const dec = new SpecDecoder(
      info,
      all.length > 0 ? new DraftIndex(all, info, opts.n ?? DEFAULT_MATCH.n, opts.calibrateBoxes) : undefined,
      opts,
    );
    dec.start(first);
    while (!dec.done) {
      checkAborted(opts);
      const chains = dec.propose();
      const lp = await session.step(chains);
      const { chain, keep } = dec.accept(lp, chains);
      session.keep(chain, keep);
    }
    const s1 = stage1.results.reduce(
      (a, r) => ({ accepted: a.accepted + r.stats.accepted, scored: a.scored + r.stats.scored }),
      { accepted: 0, scored: 0 },
    );
    return {
      tokens: dec.tokens,
      reason: dec.reason,
      loopStart: dec.loopStart,
      regionOutputs,
      stats: {
        passes: stage1.rounds + dec.stats.passes,
        accepted: dec.stats.accepted,
        generated: dec.stats.generated,
        scored: dec.stats.scored + s1.scored,
        stage1Passes: stage1.rounds,
        stage2Passes: dec.stats.passes,
      },
    };
  } finally {
    session.dispose?.();
  }
}

function stripStop(tokens: readonly number[], info: TokenInfo): number[] {
  const out = [...tokens];
  while (out.length > 0 && info.isStop(out[out.length - 1])) out.pop();
  return out;
}
