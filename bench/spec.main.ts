/**
 * `npm run bench:spec` — speculative decoding figures (prints tables; nothing here is a test).
 *
 *   1. Oracle replay on real corpus pages: output tokens per decoder pass, AAL and the causes of
 *      lost passes, for `page` and `hsd` and K ∈ {8, 16, 32}, with the pipeline's actual drafts
 *      (the Folio CLI is run on each PDF; outputs cached under the OS temp folder).
 *   2. Draft variants before/after (plain text → DocTags → normalized → tag wildcards).
 *   3. Wall clock on the tiny ONNX fixture model: ar / page / hsd per page in the same run.
 *
 * Options: --quick (a few files per set), --sets a,b (set prefixes), --no-wall, --no-oracle,
 * --tokenizer real|stand-in (the oracle's detailed tables; default real: granite-docling's own
 * tokenizer assembled from ../shared/models, where <loc_N> is several BPE pieces). A last table
 * always puts both tokenizers side by side per set.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { corpusRoot, repoRoot } from '../test/helpers/corpus';
import { pagesFromDocTags, pagesFromMarkdown, type OraclePage } from './oracle/corpusPages';
import { DocTagsTokenizer } from './oracle/doctagsTokenizer';
import { replayPage, VARIANTS, type DraftVariant } from './oracle/oracleRun';
import { CAUSES, addStats, emptyStats, type ReplayStats } from './oracle/replay';
import { makeTinyModels, realTokenizer } from '../scripts/fixtures/makeTinyModels';
import { loadDecoderTarget, tokenInfoFor } from '../server/vlm/loadTarget';
import { decodePage, type PageJob, type RegionJob } from '../server/speculative/hsd';
import { mulberry32 } from '../server/speculative/random';
import type { DecodeOptions, SpecMode } from '../server/speculative/types';
import { requireMeasured } from '../eval/report/nothingMeasured';

/** What would make the speed-ups below real (issue 29: every published speed-up names its kind). */
const REAL_RUN = 'Real: a page run on the real weights (--speculation off vs page, same pages, one run).';

const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const setsArg = argv.includes('--sets') ? argv[argv.indexOf('--sets') + 1].split(',') : undefined;

interface Source {
  set: string;
  pdf: string;
  gt: string;
  kind: 'doctags' | 'md';
  scanned: boolean;
}

const SETS: { prefix: string; scanned: boolean; doctags: boolean }[] = [
  { prefix: 'docling/pdf/', scanned: false, doctags: true },
  { prefix: 'docling-src-rendered/', scanned: false, doctags: false },
  { prefix: 'selfmade-example/', scanned: false, doctags: false },
  { prefix: 'docling/ocr/', scanned: true, doctags: false },
];

function sources(root: string): Source[] {
  const rows = readFileSync(join(root, 'MANIFEST.tsv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split('\t'));
  const out: Source[] = [];
  for (const s of SETS) {
    if (setsArg && !setsArg.some((a) => s.prefix.startsWith(a))) continue;
    let picked = rows.filter((r) => r[0].startsWith(s.prefix) && r[3] && r[3] !== '-' && r[1] !== '?');
    if (quick) picked = picked.slice(0, 4);
    for (const r of picked) {
      const gt = s.doctags ? join(root, r[0].replace(/\.pdf$/, '.doctags.txt')) : join(root, r[3]);
      if (!existsSync(gt)) continue;
      out.push({
        set: s.prefix.replace(/\/$/, ''),
        pdf: join(root, r[0]),
        gt,
        kind: s.doctags ? 'doctags' : 'md',
        scanned: s.scanned,
      });
    }
  }
  return out;
}

/** Runs the CLI once per set (cached by the CLI bundle's mtime) and returns pdf → DocTags. */
function pipelineOutputs(srcs: Source[]): Map<string, string> {
  const cli = join(repoRoot(), 'dist', 'cli.js');
  if (!existsSync(cli)) throw new Error(`bench:spec needs the CLI bundle ${cli}: run \`npm run build\` first.`);
  const stamp = Math.round(statSync(cli).mtimeMs);
  const out = new Map<string, string>();
  const bySet = new Map<string, Source[]>();
  for (const s of srcs) bySet.set(s.set, [...(bySet.get(s.set) ?? []), s]);
  for (const [set, list] of bySet) {
    const dir = join(tmpdir(), 'folio-bench-spec', `${stamp}`, set.replace(/\//g, '_'));
    mkdirSync(dir, { recursive: true });
    // The name the CLI gives `--format json` output (server/cli/main.ts EXT.json).
    const jsonOf = (pdf: string) => join(dir, basename(pdf).replace(/\.pdf$/i, '.folio-result.json'));
    const missing = list.filter((s) => !existsSync(jsonOf(s.pdf)));
    if (missing.length > 0) {
      process.stderr.write(`running the Folio CLI on ${missing.length} PDFs of ${set}…\n`);
      try {
        execFileSync(
          process.execPath,
          [cli, 'convert', ...missing.map((s) => s.pdf), '--format', 'json', '-q', '--jobs', '2', '-o', dir + '/'],
          {
            stdio: ['ignore', 'ignore', 'inherit'],
            timeout: 30 * 60_000,
          },
        );
      } catch (err) {
        process.stderr.write(
          `the CLI failed on some files of ${set} (${(err as Error).message.split('\n')[0]}); those are left out\n`,
        );
      }
    }
    for (const s of list) {
      const j = jsonOf(s.pdf);
      if (!existsSync(j)) continue;
      const summary = JSON.parse(readFileSync(j, 'utf8')) as { doctags?: string };
      if (summary.doctags) out.set(s.pdf, summary.doctags);
    }
  }
  return out;
}

function fmt(x: number, d = 2): string {
  return Number.isFinite(x) ? x.toFixed(d) : '—';
}

function table(head: string[], rows: (string | number)[][]): void {
  const cells = [head, ...rows.map((r) => r.map(String))];
  const w = head.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) =>
    '| ' + r.map((c, i) => (i === 0 ? c.padEnd(w[i]) : c.padStart(w[i]))).join(' | ') + ' |';
  console.log(line(head));
  console.log('|' + w.map((n, i) => (i === 0 ? '-'.repeat(n + 2) : '-'.repeat(n + 1) + ':')).join('|') + '|');
  for (const r of cells.slice(1)) console.log(line(r));
  console.log('');
}

/** The drafts the mode/K table uses (the last improvement that does not multiply the chains). */
const BEST_VARIANT = '+ bullets merged into list items';

interface Agg {
  tokens: number;
  ar: number;
  passes: number;
  stage1: number;
  stats: ReplayStats;
  pages: number;
}

function aggregate(pages: OraclePage[], tok: DocTagsTokenizer, mode: 'page' | 'hsd', K: number, v: DraftVariant): Agg {
  const agg: Agg = { tokens: 0, ar: 0, passes: 0, stage1: 0, stats: emptyStats(), pages: 0 };
  for (const p of pages) {
    const r = replayPage(tok, p, mode, K, v);
    agg.tokens += r.tokens - 1; // the first token comes from prefill
    agg.ar += r.arPasses;
    agg.passes += r.stats.passes + r.stage1Passes;
    agg.stage1 += r.stage1Passes;
    agg.stats = addStats(agg.stats, r.stats);
    agg.pages++;
  }
  return agg;
}

/** The pages the oracle replays: ground truth and the pipeline's draft of each corpus page. */
function oraclePages(): OraclePage[] {
  const root = corpusRoot();
  const srcs = sources(root);
  requireMeasured(
    srcs.length,
    `the oracle set (${setsArg?.join(',') ?? 'all sets'}${quick ? ', --quick' : ''})`,
    `No corpus PDF with ground truth matched under ${root}; check --sets and the corpus.`,
  );
  const outputs = pipelineOutputs(srcs);
  requireMeasured(
    outputs.size,
    `the pipeline's drafts for ${srcs.length} PDFs`,
    'The Folio CLI wrote no JSON result for any of them (see its errors above).',
  );
  const pages: OraclePage[] = [];
  srcs.forEach((s, i) => {
    const dt = outputs.get(s.pdf);
    if (!dt) return;
    const gt = readFileSync(s.gt, 'utf8');
    const ps =
      s.kind === 'doctags'
        ? pagesFromDocTags(s.set, s.pdf, gt, dt, s.scanned)
        : pagesFromMarkdown(s.set, s.pdf, gt, dt, s.scanned, 1000 + i);
    // Pages the ground truth has nothing for (cover images, blank pages) say nothing about drafting.
    pages.push(...ps.filter((p) => p.target.length > '<doctag>\n</doctag>'.length + 20));
  });
  requireMeasured(
    pages.length,
    `the oracle replay (${srcs.length} PDFs)`,
    'No page had both ground truth and a pipeline draft.',
  );
  return pages;
}

function oracle(): void {
  const pages = oraclePages();
  const real = realTokenizer().tok;
  const realTok = new DocTagsTokenizer({
    tok: real,
    info: tokenInfoFor(real, [real.id('</doctag>'), real.id('<|end_of_text|>')]),
  });
  const standIn = new DocTagsTokenizer();
  const tok = argv.includes('--tokenizer') && argv[argv.indexOf('--tokenizer') + 1] === 'stand-in' ? standIn : realTok;
  const groups: [string, OraclePage[]][] = [
    ['born-digital', pages.filter((p) => !p.scanned)],
    ['scanned', pages.filter((p) => p.scanned)],
  ];
  console.log(
    "## Oracle replay — oracle: Docling's output as the model's choice, no model runs (target = ground truth as DocTags; drafts = the Folio pipeline's output)\n",
  );
  console.log(`Upper bounds, not the model's speed-up. ${REAL_RUN}\n`);
  console.log(`Tokenizer: ${tok.label}.`);
  console.log(
    'Passes exclude prefill; ar needs one pass per token. Matcher n = 3 with fallback to 2 and 1, at most 8 chains.\n',
  );
  for (const [name, ps] of groups) oracleGroup(name, ps, tok);
  tokenizerTable(pages, standIn, realTok);
}

/** One group's tables (born-digital or scanned): draft variants, modes and K, sets, lowest pages. */
function oracleGroup(name: string, ps: OraclePage[], tok: DocTagsTokenizer): void {
  if (ps.length === 0) return;
  const files = new Set(ps.map((p) => p.file)).size;
  console.log(
    `### ${name}: ${ps.length} pages from ${files} PDFs (${[...new Set(ps.map((p) => p.set))].join(', ')})\n`,
  );
  console.log('Draft variants (mode page, K = 32), before → after:\n');
  table(
    ['drafts', 'tokens/pass', 'AAL', 'passes saved ×', 'scored tokens/pass'],
    VARIANTS.map((v) => {
      const a = aggregate(ps, tok, 'page', 32, v);
      return [
        v.name,
        fmt(a.tokens / a.passes),
        fmt(a.stats.accepted / a.stats.passes),
        fmt(a.ar / a.passes),
        fmt(a.stats.scored / a.stats.passes, 1),
      ];
    }),
  );
  const best = VARIANTS.find((v) => v.name === BEST_VARIANT) ?? VARIANTS[VARIANTS.length - 1];
  console.log(
    `Modes and K (drafts: ${best.name.replace(/^\+ /, 'normalized + ')}); lost-pass shares are of the page-level passes:\n`,
  );
  const rows: (string | number)[][] = [];
  for (const mode of ['page', 'hsd'] as const) {
    for (const K of [8, 16, 32]) {
      const a = aggregate(ps, tok, mode, K, best);
      const c = a.stats.causes;
      const tot = a.stats.passes;
      rows.push([
        `${mode} K=${K}`,
        fmt(a.tokens / a.passes),
        fmt(a.stats.accepted / a.stats.passes),
        fmt(a.ar / a.passes),
        mode === 'hsd' ? `${a.stage1}` : '—',
        fmt(a.stats.scored / a.stats.passes, 1),
        ...CAUSES.map((k) => `${fmt((100 * c[k]) / tot, 0)}%`),
      ]);
    }
  }
  table(['mode', 'tokens/pass', 'AAL', '× vs ar', 'stage-1 passes', 'scored/pass', ...CAUSES], rows);
  const sets = [...new Set(ps.map((p) => p.set))];
  table(
    ['set (drafts as above)', 'pages', 'page K=32 tokens/pass', 'hsd K=32 tokens/pass', 'ar passes'],
    sets.map((set) => {
      const sub = ps.filter((p) => p.set === set);
      const pg = aggregate(sub, tok, 'page', 32, best);
      const hs = aggregate(sub, tok, 'hsd', 32, best);
      return [set, sub.length, fmt(pg.tokens / pg.passes), fmt(hs.tokens / hs.passes), pg.ar];
    }),
  );
  // Worst pages point at what to fix next.
  const per = ps
    .map((p) => {
      const r = replayPage(tok, p, 'page', 32, best);
      return { p, tpp: (r.tokens - 1) / r.stats.passes, r };
    })
    .sort((a, b) => a.tpp - b.tpp)
    .slice(0, 5);
  table(
    ['lowest pages (page, K=32)', 'tokens/pass', 'top cause'],
    per.map(({ p, tpp, r }) => {
      const top = [...CAUSES].sort((a, b) => r.stats.causes[b] - r.stats.causes[a])[0];
      return [`${p.set}/${basename(p.file)} p${p.page}`, fmt(tpp), top];
    }),
  );
}

/** The same pages and drafts under both tokenizers. */
function tokenizerTable(pages: OraclePage[], standIn: DocTagsTokenizer, realTok: DocTagsTokenizer): void {
  // The same pages and drafts under both tokenizers: the stand-in's one token per location
  // overstated tokens per pass (issue 20); the real tokenizer's figures are the ones that hold.
  console.log(`### Tokens per decoder pass by tokenizer (drafts: ${BEST_VARIANT.replace(/^\+ /, 'normalized + ')})\n`);
  const sets = [...new Set(pages.map((p) => p.set))];
  const row = (label: string, ps: OraclePage[]) => {
    const cells: (string | number)[] = [label, ps.length];
    for (const t of [standIn, realTok]) {
      const best = VARIANTS.find((v) => v.name === BEST_VARIANT) ?? VARIANTS[VARIANTS.length - 1];
      const a8 = aggregate(ps, t, 'page', 8, best);
      const a32 = aggregate(ps, t, 'page', 32, best);
      const h32 = aggregate(ps, t, 'hsd', 32, best);
      cells.push(a8.ar, fmt(a8.tokens / a8.passes), fmt(a32.tokens / a32.passes), fmt(h32.tokens / h32.passes));
    }
    return cells;
  };
  table(
    [
      'set',
      'pages',
      'stand-in: ar passes',
      'page K=8',
      'page K=32',
      'hsd K=32',
      'real: ar passes',
      'page K=8',
      'page K=32',
      'hsd K=32',
    ],
    [
      ...sets.map((set) =>
        row(
          set,
          pages.filter((p) => p.set === set),
        ),
      ),
      row('all', pages),
    ],
  );
}

type Table = typeof table;

/** Best of the repetitions: on a shared machine the fastest run is the one least disturbed. */
function best(xs: number[]): number {
  return Math.min(...xs);
}

interface WallPage {
  prompt: number[];
  ar: number[];
  regions: { prompt: number[]; ar: number[] }[];
}

/** The wall-clock pages: random prompts of the fixture's words, each with 3 regions, and their ar outputs. */
async function wallPages(
  t: Awaited<ReturnType<typeof loadDecoderTarget>>,
  rand: () => number,
  nPages: number,
  opts: DecodeOptions,
): Promise<WallPage[]> {
  const words = ['page', 'text', 'the', 'and', 'fixture', 'Tiny', 'la'];
  const prompt = (s: string) =>
    t.tokenizer.encode(
      `<|start_of_role|>user<|end_of_role|>${s}<|end_of_text|>\n<|start_of_role|>assistant<|end_of_role|>`,
    );
  const pages: WallPage[] = [];
  for (let i = 0; i < nPages; i++) {
    const ask = Array.from({ length: 4 + i }, () => words[Math.floor(rand() * words.length)]).join(' ');
    const p = prompt(ask);
    const ar = (await decodePage(t.target, { prompt: p, drafts: [] }, t.info, 'ar', opts)).tokens;
    const regions = [];
    for (let r = 0; r < 3; r++) {
      const rp = prompt(`${ask} ${r}`);
      regions.push({
        prompt: rp,
        ar: (await decodePage(t.target, { prompt: rp, drafts: [] }, t.info, 'ar', opts)).tokens,
      });
    }
    pages.push({ prompt: p, ar, regions });
  }
  return pages;
}

/**
 * Wall clock on the tiny random-weight fixture decoder (CPU, one thread): each page is decoded
 * by ar, page and hsd in turn, repeated, and the best run taken, so the three modes see the same
 * machine load. Drafts: "matching" = the page's own ar output (the best a pipeline can do),
 * "useless" = random tokens (the matcher finds little, so this measures its overhead).
 */
async function runWallClock(dir: string, print: Table, short: boolean): Promise<void> {
  const dirs = makeTinyModels(dir);
  const t = await loadDecoderTarget(dirs.free, { threads: 1 });
  const rand = mulberry32(5);
  const nPages = short ? 3 : 8;
  const maxNewTokens = 128;
  const reps = short ? 3 : 5;
  const opts: DecodeOptions = { maxNewTokens };
  const pages = await wallPages(t, rand, nPages, opts);
  const junk = (n: number) => Array.from({ length: n }, () => Math.floor(rand() * 256));
  const job = (pg: WallPage, kind: 'matching' | 'useless'): PageJob => {
    const regions: RegionJob[] = pg.regions.map((r) => ({
      prompt: r.prompt,
      drafts: [kind === 'matching' ? r.ar : junk(r.ar.length)],
      wrap: (o) => [...o],
    }));
    return { prompt: pg.prompt, drafts: [kind === 'matching' ? pg.ar : junk(pg.ar.length)], regions };
  };
  const configs: { name: string; mode: SpecMode; kind: 'matching' | 'useless'; opts: DecodeOptions }[] = [
    { name: 'ar', mode: 'ar', kind: 'useless', opts },
    { name: 'page, matching drafts', mode: 'page', kind: 'matching', opts },
    {
      name: 'page, matching, deepest chain only',
      mode: 'page',
      kind: 'matching',
      opts: { ...opts, verify: 'deepest' },
    },
    { name: 'hsd, matching drafts', mode: 'hsd', kind: 'matching', opts },
    { name: 'page, useless drafts', mode: 'page', kind: 'useless', opts },
    { name: 'page, useless, deepest chain only', mode: 'page', kind: 'useless', opts: { ...opts, verify: 'deepest' } },
    { name: 'hsd, useless drafts', mode: 'hsd', kind: 'useless', opts },
  ];
  const ms = configs.map(() => 0);
  const passes = configs.map(() => 0);
  const scoredTokens = configs.map(() => 0);
  for (const pg of pages) {
    const times: number[][] = configs.map(() => []);
    const jobs = { matching: job(pg, 'matching'), useless: job(pg, 'useless') };
    for (let r = 0; r < reps; r++) {
      for (let c = 0; c < configs.length; c++) {
        const cf = configs[c];
        const t0 = performance.now();
        const out = await decodePage(t.target, jobs[cf.kind], t.info, cf.mode, cf.opts);
        times[c].push(performance.now() - t0);
        if (r === 0) {
          passes[c] += out.stats.passes;
          scoredTokens[c] += out.stats.scored;
        }
        if (out.tokens.join() !== pg.ar.join()) throw new Error(`${cf.name}: output differs from ar`);
      }
    }
    times.forEach((ts, c) => (ms[c] += best(ts)));
  }
  console.log(
    `## Wall clock on the tiny fixture decoder — fixture copies its drafts (${nPages} pages × ${maxNewTokens} tokens, best of ${reps}, CPU 1 thread)\n\nThe loop's overhead, not the model's speed-up. ${REAL_RUN}\n`,
  );
  console.log(
    'All modes wrote exactly the ar tokens (checked). hsd includes its Stage 1 (3 regions as one batch, one decoder run per round).\n',
  );
  print(
    ['mode', 'ms/page', 'ratio vs ar', 'decoder passes/page', 'scored tokens/page'],
    configs.map((c, i) => [
      c.name,
      fmt(ms[i] / nPages, 1),
      fmt(ms[i] / ms[0], 3),
      fmt(passes[i] / nPages, 1),
      fmt(scoredTokens[i] / nPages, 0),
    ]),
  );
}

async function main(): Promise<void> {
  const t0 = Date.now();
  if (!argv.includes('--no-oracle')) oracle();
  if (!argv.includes('--no-wall')) {
    const dir = mkdtempSync(join(tmpdir(), 'folio-bench-spec-'));
    try {
      await runWallClock(dir, table, quick);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  console.log(`bench:spec done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
