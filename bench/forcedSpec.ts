/**
 * Speculative decoding measured on the full-size decoder with drafts it accepts (bench-only).
 *
 * Random weights never agree with a real page, so the page's ground-truth DocTags are forced as
 * the model's output: every pass runs the real decoder (fork, ragged run over all chains, the
 * log-softmax of every position) and only afterwards is the target token made the argmax of the
 * positions whose chain prefix still follows the target. Pass costs are therefore the real ones;
 * acceptance is what the pipeline's drafts earn against the real DocTags (the same rule as the
 * oracle replay of bench:spec). The prompt's KV cache is seeded at the page prompt's length
 * (prefill is the same for every mode and is measured separately).
 *
 * Token ids: the model's own tokenizer (the real granite-docling tokenizer.json the fixture
 * folders carry: `<loc_N>` is several BPE pieces) when it is the real one, so ids are the model's
 * and the location pieces are found as in the product; otherwise (an older fixture) the oracle
 * tokenizer (cl100k + one id per DocTags tag and location, ids up to 300,499), mapped one-to-one
 * into the model's 100,352 ids (ids the page does not use are reassigned), the matcher's token
 * classes following the map.
 */
import { pagesFromDocTags, assemblePage, type OraclePage } from './oracle/corpusPages';
import { DocTagsTokenizer } from './oracle/doctagsTokenizer';
import { mergeBulletBlocks, normalizeBlockContent } from '../server/speculative/draftText';
import { decodeOne } from '../server/speculative/decode';
import { DecoderTargetSession } from '../server/vlm/decoderTarget';
import { mulberry32 } from '../server/speculative/random';
import { specDefaultsFor } from '../server/speculative/defaults';
import type { DecodeOptions, LogProbs, TargetSession, TokenInfo } from '../server/speculative/types';
import { tokenInfoFor } from '../server/vlm/loadTarget';
import type { VlmModel } from '../server/vlm/model';

export interface SpecRun {
  name: string;
  pages: number;
  tokens: number;
  passes: number;
  scored: number;
  ms: number;
  /** The output equals the forced target (hence ar's output: speculation changed nothing). */
  same: boolean;
  /** Process peak RSS after this setting's runs (MiB). */
  peakMiB: number;
}

/** One-to-one map of oracle ids into [0, vocab). */
class IdMap {
  private fwd = new Map<number, number>();
  private inv = new Map<number, number>();
  private next: number;
  constructor(
    used: Set<number>,
    private readonly vocab: number,
  ) {
    this.used = used;
    this.next = vocab - 1;
  }
  private used: Set<number>;
  to(id: number): number {
    if (id < this.vocab && this.used.has(id)) return id;
    let m = this.fwd.get(id);
    if (m === undefined) {
      while (this.used.has(this.next) || this.inv.has(this.next)) this.next--;
      m = this.next--;
      this.fwd.set(id, m);
      this.inv.set(m, id);
    }
    return m;
  }
  from(m: number): number {
    return this.inv.get(m) ?? m;
  }
  info(base: TokenInfo): TokenInfo {
    return {
      isLocation: (x) => base.isLocation(this.from(x)),
      isStop: (x) => base.isStop(this.from(x)),
      location: base.location ? (x) => base.location!(this.from(x)) : undefined,
      locationToken: base.locationToken
        ? (v) => {
            const t = base.locationToken!(v);
            return t === undefined ? undefined : this.to(t);
          }
        : undefined,
      keySymbol: base.keySymbol ? (x) => base.keySymbol!(this.from(x)) : undefined,
      locationRoles: base.locationRoles ? (xs) => base.locationRoles!(xs.map((x) => this.from(x))) : undefined,
    };
  }
}

class ForcedSession implements TargetSession {
  private pos = 0;
  decodeStart = 0;
  constructor(
    private readonly inner: DecoderTargetSession,
    private readonly target: readonly number[],
    private readonly promptTokens: number,
  ) {}
  get vocabSize(): number {
    return this.inner.vocabSize;
  }
  async prefill(): Promise<LogProbs> {
    this.inner.session.seedCacheForBenchmark(this.promptTokens);
    const lp = new Float32Array(this.inner.session.vocabSize).fill(-30);
    lp[this.target[0]] = 0;
    this.pos = 0;
    this.decodeStart = performance.now();
    return lp;
  }
  async step(chains: readonly (readonly number[])[]): Promise<LogProbs[][]> {
    const out = await this.inner.step(chains);
    chains.forEach((ch, c) => {
      for (let i = 0; i < ch.length; i++) {
        if (ch[i] !== this.target[this.pos + i]) break;
        const want = this.target[this.pos + i + 1];
        if (want === undefined) break;
        const lp = out[c][i];
        let m = -Infinity;
        for (let j = 0; j < lp.length; j++) if (lp[j] > m) m = lp[j];
        lp[want] = m + 1;
      }
    });
    return out;
  }
  keep(chain: number, length: number): void {
    this.inner.keep(chain, length);
    this.pos += length;
  }
  dispose(): void {
    this.inner.dispose();
  }
}

interface ForcedConfig {
  name: string;
  drafts: 'none' | 'good' | 'useless';
  opts: DecodeOptions;
}

/** The settings compared: ar, the provider's defaults and K=32 with 8 chains, each with good and useless drafts. */
function forcedConfigs(provider: string, maxTokens: number): ForcedConfig[] {
  const cpu = specDefaultsFor(provider);
  const common: DecodeOptions = { maxNewTokens: maxTokens, locSpread: 1, calibrateBoxes: true };
  return [
    { name: 'ar', drafts: 'none', opts: common },
    {
      name: `page, pipeline drafts, defaults (K=${cpu.K}, ${cpu.maxChains} chain)`,
      drafts: 'good',
      opts: { ...common, K: cpu.K, maxChains: cpu.maxChains, verify: cpu.verify },
    },
    {
      name: `page, useless drafts, defaults (K=${cpu.K}, ${cpu.maxChains} chain)`,
      drafts: 'useless',
      opts: { ...common, K: cpu.K, maxChains: cpu.maxChains, verify: cpu.verify },
    },
    { name: 'page, pipeline drafts, K=32, 8 chains', drafts: 'good', opts: { ...common, K: 32, maxChains: 8 } },
    { name: 'page, useless drafts, K=32, 8 chains', drafts: 'useless', opts: { ...common, K: 32, maxChains: 8 } },
  ];
}

/** Each page's target ids (cut at `maxTokens`), its drafts and their token info, over a small id map. */
function preparePages(pages: OraclePage[], tok: DocTagsTokenizer, base: TokenInfo, V: number, maxTokens: number) {
  return pages.map((page) => {
    const target = tok.encode(page.target).ids.slice(0, maxTokens);
    const blocks = mergeBulletBlocks(page.pipeline).map((b) => ({
      ...b,
      content: normalizeBlockContent(b.tag, b.content),
    }));
    const good = tok.encode(assemblePage(blocks)).ids;
    const rand = mulberry32(7);
    const useless = good.map(() => target[Math.floor(rand() * target.length)]);
    const map = new IdMap(new Set([...target, ...good].filter((x) => x < V)), V);
    const mt = target.map((x) => map.to(x));
    return {
      info: map.info(base),
      mt,
      drafts: { none: undefined, good: [good.map((x) => map.to(x))], useless: [useless.map((x) => map.to(x))] },
    };
  });
}

/**
 * ar and page on the first `maxTokens` tokens of each corpus page, with the pipeline's drafts
 * (good) and with shuffled tokens of the page (useless: keys match by chance, proposals fail).
 */
export async function forcedPageRuns(
  model: VlmModel,
  docs: { pdf: string; gt: string; doctags: string }[],
  o: {
    promptTokens: number;
    maxTokens: number;
    provider: string;
    progress?: (m: string) => void;
    defaultsOnly?: boolean;
  },
): Promise<SpecRun[]> {
  const mt = model.tokenizer;
  const realVocab = mt.tryId('<loc_0>') === undefined && mt.tryId('<doctag>') !== undefined;
  const tok = realVocab
    ? new DocTagsTokenizer({ tok: mt, info: tokenInfoFor(mt, [...model.stopIds]) })
    : new DocTagsTokenizer();
  o.progress?.(`forced speculation: tokenizer ${tok.label}`);
  const base = tok.tokenInfo({ tagWildcards: true });
  const pages = docs.flatMap((d) => pagesFromDocTags('docling/pdf', d.pdf, d.gt, d.doctags, false).slice(0, 1));
  if (pages.length === 0) throw new Error('forced speculation: no corpus page with a pipeline draft');
  const configs = forcedConfigs(o.provider, o.maxTokens);
  const runs: SpecRun[] = configs.map((c) => ({
    name: c.name,
    pages: 0,
    tokens: 0,
    passes: 0,
    scored: 0,
    ms: 0,
    same: true,
    peakMiB: 0,
  }));
  const prepared = preparePages(pages, tok, base, model.config.text.vocab, o.maxTokens);
  // Settings in groups: the 1-chain defaults first, pages outer and settings inner (so ar and
  // page see the same machine load on a shared machine), and the peak RSS after each group (the
  // process peak so far) shows what the defaults need before the 8-chain settings fork the KV
  // cache eight times.
  const groups = [
    configs.map((_, i) => i).filter((i) => (configs[i].opts.maxChains ?? 8) === 1 || configs[i].drafts === 'none'),
  ];
  if (!o.defaultsOnly) groups.push(configs.map((_, i) => i).filter((i) => !groups[0].includes(i)));
  for (const group of groups) {
    for (const p of prepared) {
      for (const c of group) {
        const fs = new ForcedSession(new DecoderTargetSession(model.newSession()), p.mt, o.promptTokens);
        try {
          const r = await decodeOne(fs, [], p.drafts[configs[c].drafts], p.info, configs[c].opts);
          const ms = performance.now() - fs.decodeStart;
          const run = runs[c];
          run.pages++;
          run.tokens += r.tokens.length - 1; // the first token comes from prefill
          run.passes += r.stats.passes;
          run.scored += r.stats.scored;
          run.ms += ms;
          run.same &&= r.tokens.join() === p.mt.join();
        } finally {
          fs.dispose();
        }
      }
    }
    for (const c of group) {
      runs[c].peakMiB = Math.round(process.resourceUsage().maxRSS / 1024);
      o.progress?.(`${configs[c].name}: ${(runs[c].ms / 1000).toFixed(1)} s`);
    }
  }
  return runs.filter((r) => r.pages > 0);
}
