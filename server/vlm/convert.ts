/**
 * Page and region conversion on a loaded `VlmModel`: prompts, layout priors, the loop guard's
 * fallback, and turning the model's text into the page's DocTags. Runs in the VLM worker (and
 * directly in tests and the benchmark).
 *
 * Loop fallback: when a page's output starts repeating, the elements written before the loop
 * are kept and the pipeline's items (the priors) that they do not cover are appended; the page
 * result's warnings and `fellBackRegions` say so. Without priors the page fails with a clear
 * error and the orchestrator falls back to the pipeline for the whole page. In region mode a
 * looping or unusable region is replaced by its pipeline item.
 *
 * Speculation (page mode): the pipeline's items for the page (`job.priors`) become the page
 * draft (server/speculative/draftText.ts) and the page is decoded speculatively with the
 * provider's defaults (server/speculative/defaults.ts) unless the setting is `off`. Greedy
 * acceptance keeps the tokens identical to plain greedy decoding; the result's `speculation`
 * says which mode ran and how many decoder passes it took. Region mode and region reparse stay
 * greedy (their batches already decode many regions per pass).
 */
import { FolioError } from '../errors';
import { FolioErrorCodes, type RegionClass } from '../../common/protocol';
import { parseDocTags } from '../doctags/parse';
import { serializeItem, serializePage } from '../doctags/serialize';
import { toGrid, type DocItem } from '../model/items';
import type { LoopGuardOptions } from '../util/loopGuard';
import type { PageJob, RegionJob, SpeculationReport, VlmPageOutput } from './messages';
import { noTimings, type GenerateOutput, type GenerateRequest, type Timings, type VlmModel } from './model';
import { specDefaultsFor, specModeFor, type SpeculationSetting } from '../speculative/defaults';
import { pageDraftFromItems, regionDraftsFromItems } from '../speculative/draftText';
import { generateSpeculative, type SpecRegionRequest } from './specGenerate';
import { cropRect, imageSize } from './preprocess';
import {
  layoutPrior,
  PAGE_INSTRUCTION,
  regionInstruction,
  stripWrapper,
  usePrior,
  type LayoutPriorSetting,
} from './prompt';

export interface ConvertSettings {
  layoutPrior: LayoutPriorSetting;
  maxNewTokens?: number;
  loopGuard?: LoopGuardOptions | false;
  /** Regions decoded together in region mode. */
  regionBatch?: number;
  /** Page decoding: auto (the provider's default), off (greedy), page or hsd. Default auto. */
  speculation?: SpeculationSetting;
  signal?: { readonly aborted: boolean };
  /** Streamer: each page token as it is committed (greedy or speculative, same order). */
  onToken?: (id: number) => void;
}

function addTimings(a: Timings, b: Timings): Timings {
  return {
    preprocessMs: a.preprocessMs + b.preprocessMs,
    visionMs: a.visionMs + b.visionMs,
    prefillMs: a.prefillMs + b.prefillMs,
    decodeMs: a.decodeMs + b.decodeMs,
    promptTokens: a.promptTokens + b.promptTokens,
    newTokens: a.newTokens + b.newTokens,
  };
}

/** Overlap of two grid boxes relative to the smaller one. */
function containment(a: DocItem['grid'], b: DocItem['grid']): number {
  if (!a || !b) return 0;
  const w = Math.min(a[2], b[2]) - Math.max(a[0], b[0]);
  const h = Math.min(a[3], b[3]) - Math.max(a[1], b[1]);
  if (w <= 0 || h <= 0) return 0;
  const area = (g: NonNullable<DocItem['grid']>) => Math.max(1, (g[2] - g[0]) * (g[3] - g[1]));
  return (w * h) / Math.min(area(a), area(b));
}

/** Elements fully written before the loop began (a trailing unclosed element is dropped). */
function itemsBeforeLoop(text: string): DocItem[] {
  const clean = stripWrapper(text);
  const items = parseDocTags(clean)[0]?.items ?? [];
  if (items.length > 0 && !/<\/[a-z_0-9]+>\s*$/.test(clean)) items.pop();
  return items;
}

export async function convertPageOn(
  model: VlmModel,
  job: PageJob,
  s: ConvertSettings,
  detected?: DocItem[],
): Promise<VlmPageOutput> {
  if (job.mode === 'regions') return convertRegionsOn(model, job, s);
  const priorItems = detected && detected.length > 0 ? detected : job.priors;
  const prior = usePrior(s.layoutPrior, priorItems, true) ? layoutPrior(priorItems!) : '';
  const { out, timings, speculation } = await decodePageOn(
    model,
    job,
    { image: job.image, instruction: PAGE_INSTRUCTION, prior },
    s,
  );
  const warnings: string[] = [];
  const base = { provider: model.provider, tokens: out.tokens.length, timings, speculation };
  if (out.reason === 'loop') {
    if (!job.priors || job.priors.length === 0) {
      throw new FolioError(
        FolioErrorCodes.ModelError,
        `The VLM's output for page ${job.page} started repeating after ${out.tokens.length} tokens and was stopped; use the pipeline engine for this page.`,
      );
    }
    const kept = itemsBeforeLoop(out.beforeLoop ?? '');
    const rest = job.priors.filter((p) => !kept.some((k) => containment(k.grid, p.grid) > 0.5));
    warnings.push(
      `Page ${job.page}: the VLM's output started repeating and was stopped; ${rest.length} region(s) after the first ${kept.length} come from the pipeline.`,
    );
    return { ...base, doctags: serializePage([...kept, ...rest]), warnings, fellBackRegions: rest.length };
  }
  if (out.reason === 'max')
    warnings.push(
      `Page ${job.page}: the VLM stopped at the ${out.tokens.length}-token bound; the page may be cut short.`,
    );
  return { ...base, doctags: stripWrapper(out.text), warnings };
}

/**
 * The page's tokens: speculative with the pipeline's drafts when the setting asks for it and the
 * pipeline gave items with text, else greedy (the drafts are the only source of proposals, so
 * without them speculation would be greedy decoding with extra bookkeeping).
 */
async function decodePageOn(
  model: VlmModel,
  job: PageJob,
  req: GenerateRequest,
  s: ConvertSettings,
): Promise<{ out: GenerateOutput; timings: Timings; speculation: SpeculationReport }> {
  const setting = s.speculation ?? 'auto';
  const mode = specModeFor(setting, model.provider);
  const items = job.priors ?? [];
  if (mode === 'ar' || !items.some((p) => p.text || p.table)) {
    const { outputs, timings } = await model.generate([req], {
      maxNewTokens: s.maxNewTokens,
      loopGuard: s.loopGuard,
      signal: s.signal,
      onToken: s.onToken ? (_row, id) => s.onToken!(id) : undefined,
    });
    const out = outputs[0];
    // Greedy: the first token comes from the prefill, then one decoder pass per token.
    return {
      out,
      timings,
      speculation: { setting, mode: 'ar', passes: Math.max(0, out.tokens.length - 1), accepted: 0 },
    };
  }
  const d = specDefaultsFor(model.provider);
  let regions: SpecRegionRequest[] | undefined;
  if (mode === 'hsd') {
    const size = await imageSize(job.image);
    regions = items
      .filter((p) => p.bbox && (p.text || p.table))
      .map((p) => ({
        req: { image: job.image, crop: cropRect(p.bbox!, job, size), instruction: regionInstruction(p.cls) },
        drafts: regionDraftsFromItems([p]),
        wrap: (text: string) => {
          const item = regionItem(p, { text, tokens: [], reason: 'stop' });
          return item ? serializeItem(item) : '';
        },
      }));
  }
  const r = await generateSpeculative(model, req, {
    mode,
    // Box offsets and ±1 box variants as in the measured defaults (bench/forcedSpec.ts).
    decode: {
      K: d.K,
      maxChains: d.maxChains,
      verify: d.verify,
      stage1Batched: d.stage1Batched,
      locSpread: 1,
      calibrateBoxes: true,
    },
    drafts: [pageDraftFromItems(items)],
    regions,
    maxNewTokens: s.maxNewTokens,
    loopGuard: s.loopGuard,
    signal: s.signal,
    onToken: s.onToken,
  });
  return {
    out: r.output,
    timings: r.timings,
    speculation: { setting, mode, passes: r.stats.passes, accepted: r.stats.accepted, K: d.K, chains: d.maxChains },
  };
}

/** A region's item from the model's output, keeping the pipeline's class and box; undefined when unusable. */
export function regionItem(prior: DocItem, out: GenerateOutput): DocItem | undefined {
  if (out.reason === 'loop') return undefined;
  const text = stripWrapper(out.text);
  const parsed = parseDocTags(text)[0]?.items ?? [];
  const base: DocItem = {
    cls: prior.cls,
    grid: prior.grid,
    bbox: prior.bbox,
    level: prior.level,
    ordered: prior.ordered,
    id: prior.id,
    text: '',
  };
  if (prior.cls === 'table') {
    const t = parsed.find((i) => i.table && i.table.length > 0);
    return t ? { ...base, table: t.table, caption: prior.caption } : undefined;
  }
  const body =
    parsed.length > 0
      ? parsed
          .map((i) => i.text)
          .filter(Boolean)
          .join(prior.cls === 'code' ? '\n' : ' ')
      : text.replace(/<[^>]+>/g, '');
  if (!body.trim()) return undefined;
  return { ...base, text: prior.cls === 'code' ? body : body.trim(), language: prior.language };
}

async function convertRegionsOn(model: VlmModel, job: PageJob, s: ConvertSettings): Promise<VlmPageOutput> {
  const priors = (job.priors ?? []).filter((p) => p.bbox);
  if (priors.length === 0)
    throw new FolioError(
      FolioErrorCodes.ModelError,
      `Page ${job.page}: region mode needs the pipeline's regions, and there are none.`,
    );
  const size = await imageSize(job.image);
  const batch = Math.max(1, s.regionBatch ?? 8);
  const items: DocItem[] = [];
  const warnings: string[] = [];
  let fell = 0;
  let tokens = 0;
  let timings = noTimings();
  for (let i = 0; i < priors.length; i += batch) {
    const group = priors.slice(i, i + batch);
    const res = await model.generate(
      group.map((p) => ({
        image: job.image,
        crop: cropRect(p.bbox!, job, size),
        instruction: regionInstruction(p.cls),
      })),
      { maxNewTokens: s.maxNewTokens, loopGuard: s.loopGuard, signal: s.signal },
    );
    timings = addTimings(timings, res.timings);
    res.outputs.forEach((o, j) => {
      tokens += o.tokens.length;
      const item = regionItem(group[j], o);
      if (item) items.push(item);
      else {
        fell++;
        items.push(group[j]);
      }
    });
  }
  if (fell > 0)
    warnings.push(
      `Page ${job.page}: ${fell} of ${priors.length} region(s) kept the pipeline's text (the VLM's output looped or was unusable).`,
    );
  return { doctags: serializePage(items), provider: model.provider, tokens, warnings, fellBackRegions: fell, timings };
}

/** One region with the prompt for its class; returns its DocTags element (page grid locations). */
export async function parseRegionOn(model: VlmModel, job: RegionJob, s: ConvertSettings): Promise<VlmPageOutput> {
  const size = await imageSize(job.image);
  const prior: DocItem = { cls: job.cls as RegionClass, bbox: job.bbox, grid: toGrid(job.bbox, job), text: '' };
  const { outputs, timings } = await model.generate(
    [{ image: job.image, crop: cropRect(job.bbox, job, size), instruction: regionInstruction(job.cls) }],
    { maxNewTokens: s.maxNewTokens, loopGuard: s.loopGuard, signal: s.signal },
  );
  const out = outputs[0];
  if (out.reason === 'loop') {
    throw new FolioError(
      FolioErrorCodes.ModelError,
      `The VLM's output for the ${job.cls} region on page ${job.page} started repeating and was stopped; the pipeline's text is kept.`,
    );
  }
  const item = regionItem(prior, out);
  if (!item)
    throw new FolioError(
      FolioErrorCodes.ModelError,
      `The VLM wrote nothing usable for the ${job.cls} region on page ${job.page}; the pipeline's text is kept.`,
    );
  const warnings =
    out.reason === 'max' ? [`The region on page ${job.page} hit the token bound; its text may be cut short.`] : [];
  return { doctags: serializeItem(item), provider: model.provider, tokens: out.tokens.length, warnings, timings };
}
