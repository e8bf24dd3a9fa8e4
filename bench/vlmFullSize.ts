/**
 * `npm run bench:vlm -- --full-size`: pass costs of granite-docling-258M at its real size (the
 * shape-faithful random-weight export from scripts/fixtures/fullSizeVlm.ts, ~1.26 GB fp32, built
 * once into ~/.cache/folio-models-fullsize) on this machine's CPU, and speculative decoding
 * measured on it with drafts it accepts.
 *
 * Each thread count runs in its own child process (so each peak RSS is its own):
 *   - load; vision encoder per tile (and per page with --page-vision; else tiles × per tile);
 *   - prefill of a full letter-page prompt (global image + tile grid at the default resolution);
 *   - one decoder step at contexts 1k, 2k, 3k (cache seeded: a step costs the same whatever the
 *     cached values);
 *   - verification passes through the speculative seam (DecoderTargetSession: fork, one ragged
 *     run, log-softmax of every position, keep the accepted path) for a chain of k = 1…64 tokens
 *     and for b = 2, 4, 8 chains of 8 tokens sharing the prefix, as ratios to one step.
 * Then (--spec, one thread count): `ar` and `page` decoding of a real corpus page on the
 * full-size decoder, with the page's ground-truth DocTags forced as the model's argmax (the real
 * decoder run and log-softmax are paid in full; only the winning token is overridden) and the
 * Folio pipeline's drafts — good drafts — and random drafts — useless ones.
 *
 *   options: --provider cpu|cuda|webgpu (default cpu)  --threads 1,2  --reps N  --page-vision
 *            --spec  --spec-threads N  --spec-tokens N  --spec-only (ar vs page with the defaults only)
 *            --costs-out <file.json> (the cost table for `bench:spec --costs`)  --webgpu
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { basename, join } from 'node:path';
import { ensureFullSizeVlm, fullSizeCacheDir } from '../scripts/fixtures/fullSizeVlm';
import { VlmModel } from '../server/vlm/model';
import { preprocessImage, type PreprocessedImage } from '../server/vlm/preprocess';
import { DecoderTargetSession } from '../server/vlm/decoderTarget';
import { corpusRoot, repoRoot } from '../test/helpers/corpus';
import { forcedPageRuns, type SpecRun } from './forcedSpec';
import { specDefaultsFor } from '../server/speculative/defaults';
import { DocTagsTokenizer } from './oracle/doctagsTokenizer';
import { pagesFromDocTags, type OraclePage } from './oracle/corpusPages';
import { replayPage, VARIANTS, type DraftVariant } from './oracle/oracleRun';

const argv = process.argv.slice(2);
const flag = (n: string) => argv.includes(n);
const opt = (n: string, d: string) => (argv.indexOf(n) >= 0 ? argv[argv.indexOf(n) + 1] : d);

export interface CostTable {
  provider: string;
  threads: number;
  loadMs: number;
  visionTileMs: number;
  pageImages: number;
  visionPageMs: number;
  visionPageMeasured: boolean;
  promptTokens: number;
  prefillMs: number;
  /** Context → ms of one decoder step (one token). */
  stepMs: Record<string, number>;
  /** k → ms of a verification pass of one chain of k tokens (through the speculative seam). */
  chainMs: Record<string, number>;
  /** b → ms of b chains of 8 tokens sharing the prefix. */
  chainsMs: Record<string, number>;
  /** Peak RSS (MiB) after each phase. */
  rss: Record<string, number>;
  spec?: SpecRun[];
  loadAvg: number[];
}

const peakMiB = () => Math.round(process.resourceUsage().maxRSS / 1024);

/** Best of `reps` runs: on a shared machine the fastest run is the least disturbed one. */
async function best(reps: number, fn: () => Promise<void>, after?: () => void): Promise<number> {
  let b = Infinity;
  for (let i = 0; i < reps; i++) {
    const t = performance.now();
    await fn();
    b = Math.min(b, performance.now() - t);
    after?.();
  }
  return b;
}

/** A letter page (8.5 × 11 in) rendered at scale 2 as the pipeline renders it for the VLM. */
function letterPage() {
  const w = 1224;
  const h = 1584;
  const data = new Uint8ClampedArray(w * h * 4);
  for (let i = 0; i < data.length; i += 4) {
    const v = (i >> 2) % 7 === 0 ? 40 : 250;
    data[i] = data[i + 1] = data[i + 2] = v;
    data[i + 3] = 255;
  }
  return { data, width: w, height: h };
}

async function child(dir: string, threads: number): Promise<CostTable> {
  const reps = Number(opt('--reps', '3'));
  const rss: Record<string, number> = {};
  const progress = (m: string) => process.stderr.write(`  [${threads} thr] ${m} (peak RSS ${peakMiB()} MiB)\n`);
  let t = performance.now();
  const provider = opt('--provider', 'cpu');
  const model = await VlmModel.load({ modelsDir: dir, providers: [provider], threads });
  if (model.provider !== provider) throw new Error(`asked for ${provider}, got ${model.provider}`);
  const loadMs = performance.now() - t;
  rss.load = peakMiB();
  progress(`loaded in ${s1(loadMs)} s`);
  const pre = await preprocessImage(letterPage(), model.config.preprocess);
  if (flag('--spec-only')) {
    // Only ar vs page with the defaults (good and useless drafts), interleaved per page.
    const ids = model.promptIds(pre, 'Convert this page to docling.');
    const spec = await forcedPageRuns(model, pipelineDrafts(), {
      promptTokens: ids.length,
      maxTokens: Number(opt('--spec-tokens', '192')),
      provider,
      progress,
      defaultsOnly: true,
    });
    rss.spec = peakMiB();
    await model.release();
    return {
      provider,
      threads,
      loadMs,
      visionTileMs: NaN,
      pageImages: pre.grid.images,
      visionPageMs: NaN,
      visionPageMeasured: false,
      promptTokens: ids.length,
      prefillMs: NaN,
      stepMs: {},
      chainMs: {},
      chainsMs: {},
      rss,
      spec,
      loadAvg: loadavg(),
    };
  }
  const T = pre.tileSize;
  const oneTile: PreprocessedImage = {
    ...pre,
    grid: { ...pre.grid, rows: 0, cols: 0, images: 1 },
    pixelValues: pre.pixelValues.subarray(0, 3 * T * T),
  };
  const visionTileMs = await best(Math.min(reps, 2), async () => void (await model.encodeImage(oneTile)));
  rss.visionTile = peakMiB();
  progress(`one tile ${s1(visionTileMs)} s`);
  let visionPageMs = visionTileMs * pre.grid.images;
  let features: Float32Array;
  if (flag('--page-vision')) {
    t = performance.now();
    features = await model.encodeImage(pre);
    visionPageMs = performance.now() - t;
    rss.visionPage = peakMiB();
  } else {
    features = new Float32Array(pre.grid.images * 64 * model.hidden);
    for (let i = 0; i < features.length; i++) features[i] = Math.sin(i) * 0.1;
  }
  const ids = model.promptIds(pre, 'Convert this page to docling.');
  const s = model.newSession();
  const row = await model.promptEmbeds(s, ids, features);
  t = performance.now();
  await s.prefill([row]);
  const prefillMs = performance.now() - t;
  rss.prefill = peakMiB();
  progress(`prefill ${s1(prefillMs)} s`);

  const stepMs: Record<string, number> = {};
  for (const ctx of [1024, 2048, 3072]) {
    s.seedCacheForBenchmark(ctx);
    stepMs[ctx] = await best(
      reps + 2,
      async () => void (await s.step([[1000]])),
      () => s.truncate(ctx),
    );
  }
  rss.steps = peakMiB();
  progress(`steps ${JSON.stringify(stepMs)}`);

  // Speculation with forced targets first: its peak RSS (1 chain by default) is then its own,
  // not the 8-fork verification passes' below.
  let specRuns: SpecRun[] | undefined;
  if (flag('--spec') && (provider !== 'cpu' || threads === Number(opt('--spec-threads', '2')))) {
    specRuns = await forcedPageRuns(model, pipelineDrafts(), {
      promptTokens: ids.length,
      maxTokens: Number(opt('--spec-tokens', '192')),
      provider,
      progress,
    });
    rss.spec = peakMiB();
  }

  // Verification passes at the page prompt's context, through the speculative seam.
  const C = ids.length;
  s.seedCacheForBenchmark(C);
  const target = new DecoderTargetSession(s);
  const chain = (k: number, off: number) => Array.from({ length: k }, (_, i) => 1000 + off * 97 + i);
  const chainMs: Record<string, number> = {};
  for (const k of [1, 4, 8, 16, 32, 64]) {
    chainMs[k] = await best(
      reps,
      async () => {
        await target.step([chain(k, 0)]);
        target.keep(0, 1);
      },
      () => s.truncate(C),
    );
  }
  rss.verifyChains = peakMiB();
  const chainsMs: Record<string, number> = {};
  for (const b of [2, 4, 8]) {
    chainsMs[b] = await best(
      reps,
      async () => {
        await target.step(Array.from({ length: b }, (_, c) => chain(8, c)));
        target.keep(0, 1);
      },
      () => s.truncate(C),
    );
  }
  rss.verifyForks = peakMiB();
  progress(`verification ${JSON.stringify(chainMs)} ${JSON.stringify(chainsMs)}`);
  s.dispose();

  const table: CostTable = {
    provider,
    threads,
    loadMs,
    visionTileMs,
    pageImages: pre.grid.images,
    visionPageMs,
    visionPageMeasured: flag('--page-vision'),
    promptTokens: ids.length,
    prefillMs,
    stepMs,
    chainMs,
    chainsMs,
    rss,
    loadAvg: loadavg(),
    spec: specRuns,
  };
  await model.release();
  return table;
}

/** Runs the Folio CLI on a few docling/pdf PDFs (real DocTags ground truth); pdf → DocTags. */
export function pipelineDrafts(): { pdf: string; gt: string; doctags: string }[] {
  const root = join(corpusRoot(), 'docling', 'pdf');
  const names = ['2305.03393v1-pg9', 'amt_handbook_sample', 'multi_page'];
  const cli = join(repoRoot(), 'dist', 'cli.js');
  if (!existsSync(cli)) throw new Error(`--spec needs the CLI bundle ${cli}: run \`node esbuild.mjs\` first.`);
  const out = join(tmpdir(), 'folio-bench-vlm-drafts');
  mkdirSync(out, { recursive: true });
  const json = (n: string) => join(out, `${n}.folio-result.json`);
  const missing = names.filter((n) => !existsSync(json(n)));
  if (missing.length) {
    execFileSync(
      process.execPath,
      [
        cli,
        'convert',
        ...missing.map((n) => join(root, `${n}.pdf`)),
        '--format',
        'json',
        '-q',
        '--jobs',
        '1',
        '-o',
        out + '/',
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
  }
  return names
    .filter((n) => existsSync(json(n)))
    .map((n) => ({
      pdf: join(root, `${n}.pdf`),
      gt: readFileSync(join(root, `${n}.doctags.txt`), 'utf8'),
      doctags: (JSON.parse(readFileSync(json(n), 'utf8')) as { doctags: string }).doctags,
    }));
}

const f1 = (x: number) => x.toFixed(1);
const f2 = (x: number) => x.toFixed(2);
const s1 = (ms: number) => (ms / 1000).toFixed(ms < 10000 ? 2 : 1);

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

function report(ts: CostTable[]): void {
  if (flag('--spec-only')) {
    for (const t of ts) if (t.spec) reportSpec(t);
    console.log(`load average at the end: ${ts.map((t) => t.loadAvg.map(f1).join(' / ')).join('; ')}`);
    return;
  }
  console.log(
    `\n### Full-size pass costs (${ts[0].provider}; load average at the end of each run: ${ts.map((t) => `${t.threads} thr ${t.loadAvg.map(f1).join('/')}`).join('; ')})\n`,
  );
  const col = ts.map((t) => `${t.threads} thread${t.threads > 1 ? 's' : ''}`);
  const rows: (string | number)[][] = [];
  rows.push(['load the three sessions (s)', ...ts.map((t) => s1(t.loadMs))]);
  rows.push(['vision encoder, one 512 tile (s)', ...ts.map((t) => s1(t.visionTileMs))]);
  rows.push([
    `vision encoder, letter page = ${ts[0].pageImages} images (s)`,
    ...ts.map((t) => `${s1(t.visionPageMs)}${t.visionPageMeasured ? '' : ' (tiles × tile)'}`),
  ]);
  rows.push([`prefill, page prompt ${ts[0].promptTokens} tokens (s)`, ...ts.map((t) => s1(t.prefillMs))]);
  for (const c of Object.keys(ts[0].stepMs))
    rows.push([`decoder step at context ${c} (ms)`, ...ts.map((t) => f1(t.stepMs[c]))]);
  table(['measure', ...col], rows);
  console.log(
    `Verification passes at the page prompt's context (${ts[0].promptTokens}), ratio to one step there (k = 1):\n`,
  );
  const vrows: (string | number)[][] = [];
  for (const k of Object.keys(ts[0].chainMs))
    vrows.push([`chain of k = ${k}`, ...ts.flatMap((t) => [f1(t.chainMs[k]), f2(t.chainMs[k] / t.chainMs[1])])]);
  for (const b of Object.keys(ts[0].chainsMs))
    vrows.push([
      `b = ${b} chains × 8 (prefix tree)`,
      ...ts.flatMap((t) => [f1(t.chainsMs[b]), f2(t.chainsMs[b] / t.chainMs[1])]),
    ]);
  table(['pass', ...ts.flatMap((t) => [`${t.threads} thr ms`, 'ratio'])], vrows);
  console.log('Peak RSS (MiB, the process peak after each phase):\n');
  table(
    ['phase', ...col],
    Object.keys(ts[0].rss).map((k) => [k, ...ts.map((t) => t.rss[k] ?? '—')]),
  );
  for (const t of ts) if (t.spec) reportSpec(t);
  projection(ts, pipelineDrafts());
}

function reportSpec(t: CostTable): void {
  const runs = t.spec!;
  const ar = runs.find((r) => r.name === 'ar');
  if (!ar) throw new Error('spec: no ar run');
  console.log(
    `### Forced outputs, random weights — full-size decoder (${t.threads} threads): real pass costs, the page's ground-truth DocTags forced as the model's argmax (an upper bound, not the model's speed-up), first ${ar.tokens} tokens per page, prefill excluded (the same for every mode)\n\nReal: a page run on the real weights (--speculation off vs page, same pages, one run).\n`,
  );
  table(
    [
      'mode (drafts)',
      'pages',
      'tokens',
      'passes',
      'tokens/pass',
      'scored/pass',
      'decode s',
      'ratio vs ar',
      'same tokens as ar',
      'peak RSS MiB',
    ],
    runs.map((r) => [
      r.name,
      r.pages,
      r.tokens,
      r.passes,
      f2(r.tokens / r.passes),
      f1(r.scored / r.passes),
      s1(r.ms),
      f2(r.ms / ar.ms),
      r.same ? 'yes' : 'NO',
      r.peakMiB,
    ]),
  );
  const bad = runs.filter((r) => !r.same);
  if (bad.length) throw new Error(`speculation changed the output: ${bad.map((r) => r.name).join('; ')}`);
}

/** The oracle replay of `pages` under each projected setting; `arTokens`: the tokens written (the same under every setting: speculation is lossless). */
function replaySettings(pages: OraclePage[], tok: DocTagsTokenizer, variant: DraftVariant) {
  const settings: { name: string; mode: 'page' | 'hsd'; K: number; chains: number }[] = [
    { name: 'page K=4, 1 chain', mode: 'page', K: 4, chains: 1 },
    { name: 'page K=8, 1 chain', mode: 'page', K: 8, chains: 1 },
    { name: 'page K=16, 1 chain', mode: 'page', K: 16, chains: 1 },
    { name: 'page K=32, 1 chain', mode: 'page', K: 32, chains: 1 },
    { name: 'page K=8, 8 chains', mode: 'page', K: 8, chains: 8 },
    { name: 'page K=32, 8 chains', mode: 'page', K: 32, chains: 8 },
    { name: 'hsd K=8, 1 chain', mode: 'hsd', K: 8, chains: 1 },
    { name: 'hsd K=32, 8 chains', mode: 'hsd', K: 32, chains: 8 },
  ];
  let arTokens = 0;
  const acc = settings.map((st) => {
    let tokens = 0;
    let passes = 0;
    let scored = 0;
    let stage1 = 0;
    let regions = 0;
    for (const p of pages) {
      const r = replayPage(tok, p, st.mode, st.K, variant, {
        maxChains: st.chains,
        verify: st.chains === 1 ? 'deepest' : 'chains',
      });
      tokens += r.tokens - 1;
      passes += r.stats.passes + r.stage1Passes;
      scored += r.stats.scored;
      stage1 += r.stage1Passes;
      regions += p.regions.length;
    }
    arTokens = tokens;
    return {
      ...st,
      tpp: tokens / passes,
      scoredPerPass: scored / Math.max(1, passes - stage1),
      passes,
      stage1,
      regions: regions / pages.length,
    };
  });
  return { acc, arTokens };
}

/**
 * Projected page time = vision + prefill + decode, decode = Σ passes × the measured cost of a
 * pass of that size. Acceptance: the oracle replay (bench:spec's, bench/oracle) of
 * the corpus pages at hand with the pipeline's drafts, for each (K, chains) setting; plus the
 * 135-page figures of docs/speculative.md (8 chains) for comparison.
 */
export function projection(ts: CostTable[], docs: { pdf: string; gt: string; doctags: string }[]): void {
  const tok = new DocTagsTokenizer();
  const variant = VARIANTS.find((v) => v.name === '+ bullets merged into list items')!;
  const pages = docs
    .flatMap((d) => pagesFromDocTags('docling/pdf', d.pdf, d.gt, d.doctags, false))
    .filter((p) => p.target.length > 40);
  if (pages.length === 0) throw new Error('projection: no corpus page to replay');
  const { acc, arTokens } = replaySettings(pages, tok, variant);
  const perPage = arTokens / pages.length;
  console.log(
    `### Projected page time at real size (PROJECTED — oracle: measured pass costs × Docling's output replayed as the model's choice; an upper bound, not measured end to end)\n\nReal: page times of --speculation off and page on the real weights.\n`,
  );
  console.log(
    `Acceptance: oracle replay of ${pages.length} born-digital pages (${docs.map((d) => basename(d.pdf)).join(', ')}; target = Docling's real DocTags, drafts = the Folio pipeline's), ${f1(perPage)} output tokens per page. An ar pass costs the measured chain of k = 1, a pass that scores s tokens the measured chain of k = s (interpolated); several chains add the measured fork overhead (b = 8 × 8 vs k = 64). hsd adds its Stage 1: every region crop is resized to 2048 px and encoded (≥ 2 images per region; counted as 3), and one batched pass per round whose cost is the sum of its regions' chains.\n`,
  );
  const rows: (string | number)[][] = [];
  for (const t of ts) {
    const fork = t.chainsMs[8] / t.chainMs[64];
    const pass = (scored: number, chains: number) => interp(t.chainMs, scored) * (chains > 1 ? Math.max(1, fork) : 1);
    const fixed = t.visionPageMs + t.prefillMs;
    // ar's pass = the measured chain of k = 1 at the page's context: the same table (and the
    // same machine load) as the speculative passes it is compared with.
    const arMs = fixed + perPage * t.chainMs[1];
    rows.push([`${t.threads} thr`, 'ar', '1.00', '1.0', s1(fixed), s1(arMs - fixed), s1(arMs), '1.00']);
    for (const a of acc) {
      const page2 = (a.passes - a.stage1) / pages.length;
      let extra = 0;
      let decode = page2 * pass(a.scoredPerPass, a.chains);
      if (a.mode === 'hsd') {
        extra = a.regions * 3 * t.visionTileMs;
        // Stage 1 rounds: every region's chain in one batch ≈ regions × (chain of K/2) per round.
        decode += (a.stage1 / pages.length) * pass(a.regions * Math.min(a.K, 8), a.regions);
      }
      const total = fixed + extra + decode;
      rows.push([
        `${t.threads} thr`,
        a.name,
        f2(a.tpp),
        f1(a.scoredPerPass),
        s1(fixed + extra),
        s1(decode),
        s1(total),
        f2(arMs / total),
      ]);
    }
  }
  table(
    [
      'threads',
      'mode',
      'tokens/pass',
      'scored/pass',
      'vision + prefill s',
      'decode s',
      'page s',
      'projected speed-up vs ar (oracle)',
    ],
    rows,
  );
  const d = specDefaultsFor(ts[0].provider);
  console.log(
    `${ts[0].provider} defaults (server/speculative/defaults.ts): mode ${d.mode}, K = ${d.K}, ${d.maxChains} chain(s) (${d.verify}), Stage 1 batched: ${d.stage1Batched}.\n`,
  );
}

/** Linear interpolation of a k → ms table (beyond the last point: linear in k from the last two). */
export function interp(tab: Record<string, number>, k: number): number {
  const pts = Object.entries(tab)
    .map(([a, b]) => [Number(a), b] as const)
    .sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < pts.length; i++) {
    if (k <= pts[i][0] || i === pts.length - 1) {
      const [x0, y0] = pts[i - 1];
      const [x1, y1] = pts[i];
      return y0 + ((y1 - y0) * (Math.max(k, x0) - x0)) / (x1 - x0);
    }
  }
  return pts[0][1];
}

export async function fullSizeMain(): Promise<void> {
  const childAt = argv.indexOf('--child');
  // --vision-layers N: a reduced vision encoder (enough for --spec-only, which never runs it).
  const vl = opt('--vision-layers', '');
  const dir = ensureFullSizeVlm(fullSizeCacheDir(), vl ? { visionLayers: Number(vl) } : {}, (m) =>
    process.stderr.write(m + '\n'),
  );
  if (childAt >= 0) {
    const res = await child(dir, Number(argv[childAt + 1]));
    process.stdout.write(`@@RESULT ${JSON.stringify(res)}\n`);
    return;
  }
  console.log(
    `VLM full-size benchmark: ${basename(dir)} (shape-faithful, random weights) on ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB; load average ${loadavg().map(f1).join(' / ')} at start`,
  );
  const threads = opt('--threads', '1,2').split(',').map(Number);
  const results: CostTable[] = [];
  for (const n of threads) {
    process.stderr.write(`measuring with ${n} thread(s)…\n`);
    const r = spawnSync(process.execPath, [process.argv[1], ...argv, '--child', String(n)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 1 << 26,
    });
    const line = (r.stdout ?? '').split('\n').find((l) => l.startsWith('@@RESULT '));
    if (r.status !== 0 || !line)
      throw new Error(`the ${n}-thread run failed (exit ${r.status}); its output: ${(r.stdout ?? '').slice(-2000)}`);
    results.push(JSON.parse(line.slice('@@RESULT '.length)) as CostTable);
  }
  if (results.length === 0) throw new Error('no thread count measured');
  report(results);
  if (flag('--webgpu')) webgpu(dir);
  const out = opt('--costs-out', '');
  if (out) {
    writeFileSync(out, JSON.stringify(results, null, 2));
    console.log(`cost table written to ${out}`);
  }
}

/** Tries the WebGPU provider on the decoder and prints what onnxruntime says. */
function webgpu(dir: string): void {
  const code = `const ort=require('onnxruntime-node');ort.InferenceSession.create(${JSON.stringify(join(dir, 'onnx', 'decoder_model_merged.onnx'))},{executionProviders:['webgpu']}).then(()=>console.log('WebGPU: session created'),e=>console.log('WebGPU: not available here: '+String(e.message).split('\\n')[0]))`;
  const r = spawnSync(process.execPath, ['-e', code], { encoding: 'utf8', cwd: repoRoot(), timeout: 120_000 });
  console.log((r.stdout || r.stderr || `WebGPU probe exited ${r.status}`).trim());
}
