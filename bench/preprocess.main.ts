/**
 * `npm run bench:preprocess` (issue 38 item 5): the VLM's image preprocessing per page, new against
 * old in the same run, and how much of it stays on a page's critical path.
 *
 *   node out/scripts/bench/preprocess.main.js [--reps 7] [--pages 12] [--decode-ms 1500] [--only TEXT] [--quick]
 *
 * 1. Per page, the new preprocessing (server/vlm/preprocess.ts: one resize chain in WebAssembly
 *    SIMD) against the old one (bench/preprocessBaseline.ts, Folio's code before issue 38), on
 *    granite-docling's three reference images and on real corpus pages rendered at scale 2 as the
 *    product renders them (PNG files, read by path: the product hands the VLM worker the rendered
 *    page's file, which the preview shows too), keeping pages of 13–17 tiles. Old and new
 *    alternate, `--reps` times each; new twice: into a fresh buffer per page (as before the
 *    tile pool) and into the buffer the previous page's consumer released (`releaseTiles`, as
 *    `VlmModel.prepare` does once the vision encoder ran: the product's steady state). Medians of
 *    wall time and of the process's CPU time (user + system: on a loaded machine the CPU time is
 *    what an idle machine's wall time would be), ranges over the pages, and old ÷ new; the target
 *    line (≤ 300 ms) is for the recycled case. `--only TEXT` keeps the pages whose name contains TEXT. Every page's new values must equal
 *    the old ones bit for bit (the old ones are 0 levels off transformers' tiles on the reference
 *    images, test/vlm/pillowParity.test.ts), else the bench fails. Also the new kernels in
 *    plain TypeScript (the fallback where WebAssembly SIMD is missing), and the first call of a
 *    fresh process's kernels (`cold`), which the medians leave out.
 * 2. Overlap: the pages in order, each "decoded" for `--decode-ms` of CPU work on this thread
 *    (standing in for the decoder), with the next page's tiles computed ahead on the
 *    preprocessing thread (server/vlm/preprocessAhead.ts) — the wait for a page's tiles at its
 *    start, against computing them there; each page's buffer is released after it (back to the
 *    thread that wrote it), and the count of results written into a given-back buffer is printed.
 * Prints the machine's load average beside the figures: on the shared 2-core machine they vary
 * with it. `--quick` (the smoke test): one reference image, one corpus page, 2 repetitions.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { corpusRoot } from '../eval/corpus';
import { repoRoot } from '../eval/repo';
import { requireMeasured } from '../eval/report/nothingMeasured';
import { fmt, textTable } from '../eval/report/textTable';
import { pdfjs, pdfjsAssetOptions } from '../server/pdf/pdfjs';
import { renderPage } from '../server/pdf/render';
import { GRANITE_PREPROCESS, graniteFilesDir } from '../scripts/fixtures/realFiles';
import { defaultResampleKernel } from '../server/vlm/pilResample';
import { findPreprocessWorker, PreprocessAhead } from '../server/vlm/preprocessAhead';
import { preprocessHere, releaseTiles, tileGrid, type PreprocessedImage } from '../server/vlm/preprocess';
import { threadTilePool, TileBufferPool } from '../server/vlm/tilePool';
import { preprocessBaseline } from './preprocessBaseline';

/** granite-docling's preprocessor_config.json. */
const PRE = GRANITE_PREPROCESS;

/** Corpus PDFs from several producers (LibreOffice, pdfTeX, Word, Chromium…), first pages. */
const CORPUS_PDFS = [
  'selfmade-example/sample.libreoffice.pdf',
  'docling/pdf/code_and_formula.pdf',
  'docling/pdf/multi_page.pdf',
  'docling/pdf/redp5110_sampled.pdf',
  'docling/pdf/2305.03393v1-pg9.pdf',
  'pdfjs-test-pdfs/tracemonkey.pdf',
  'py-pdf-sample-files/026-latex-multicolumn/multicolumn.pdf',
  'opendataloader-samples/1901.03003.pdf',
  'docling/pdf/amt_handbook_sample.pdf',
];

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const median = (xs: number[]) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const load = () =>
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(', ')} on ${cpus().length} cores`;

interface Page {
  name: string;
  path: string;
  width: number;
  height: number;
  tiles: number;
}

async function corpusPages(dir: string, want: number): Promise<Page[]> {
  const root = corpusRoot(repoRoot());
  const lib = await pdfjs();
  const pages: Page[] = [];
  for (const rel of CORPUS_PDFS) {
    if (pages.length >= want) break;
    let data: Uint8Array;
    try {
      data = new Uint8Array(readFileSync(join(root, rel)));
    } catch {
      continue; // a file missing from this corpus copy: the others still measure
    }
    const task = lib.getDocument({ data, ...pdfjsAssetOptions() });
    const doc = await task.promise;
    try {
      for (let n = 1; n <= Math.min(2, doc.numPages) && pages.length < want; n++) {
        const r = await renderPage(doc, await doc.getPage(n), 2, true);
        const tiles = tileGrid(r.width, r.height, PRE).images;
        if (tiles < 13 || tiles > 17) continue;
        const path = join(dir, `${rel.replace(/[^A-Za-z0-9.]+/g, '_')}-p${n}.png`);
        writeFileSync(path, r.png!);
        pages.push({ name: `${rel} p${n}`, path, width: r.width, height: r.height, tiles });
      }
    } finally {
      await task.destroy();
    }
  }
  return pages;
}

function referencePages(): Page[] {
  const root = join(graniteFilesDir(), 'reference');
  return readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()
    .map((name) => ({ name: `reference ${name}`, path: join(root, name, 'input.png'), width: 0, height: 0, tiles: 0 }));
}

function sameValues(a: PreprocessedImage, b: PreprocessedImage): boolean {
  if (a.pixelValues.length !== b.pixelValues.length) return false;
  const x = new Uint32Array(a.pixelValues.buffer, a.pixelValues.byteOffset, a.pixelValues.length);
  const y = new Uint32Array(b.pixelValues.buffer, b.pixelValues.byteOffset, b.pixelValues.length);
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

async function timed<T>(f: () => Promise<T>): Promise<{ ms: number; cpuMs: number; value: T }> {
  const c = process.cpuUsage();
  const t = performance.now();
  const value = await f();
  const ms = performance.now() - t;
  const d = process.cpuUsage(c);
  return { ms, cpuMs: (d.user + d.system) / 1000, value };
}

function argText(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** CPU work on this thread for `ms` (the decoder's stand-in: it blocks the thread as `session.run` does). */
function busy(ms: number): void {
  const end = performance.now() + ms;
  let x = 0;
  while (performance.now() < end) for (let i = 0; i < 10_000; i++) x = (x * 1103515245 + 12345) | 0;
  if (x === 42) console.log('');
}

/** One case's per-page samples. */
interface Samples {
  ms: number[];
  cpuMs: number[];
}
const samples = (): Samples => ({ ms: [], cpuMs: [] });
const push = (s: Samples, t: { ms: number; cpuMs: number }) => {
  s.ms.push(t.ms);
  s.cpuMs.push(t.cpuMs);
};
const med = (s: Samples) => ({ ms: median(s.ms), cpuMs: median(s.cpuMs) });

/**
 * Part 1: old, new (fresh buffer), new (recycled buffer) and new-in-TypeScript alternating on
 * each page; prints the table and summary.
 */
async function perPage(pages: Page[], reps: number): Promise<void> {
  // Cold: the first call of this process's kernels (WebAssembly compiled, memory first touched).
  const cold = await timed(() =>
    preprocessHere({ path: pages[0].path }, PRE, undefined, undefined, new TileBufferPool()),
  );
  const rows: string[][] = [];
  const cases = ['old', 'fresh', 'recycled', 'ts'] as const;
  const all = Object.fromEntries(cases.map((c) => [c, samples()])) as Record<(typeof cases)[number], Samples>;
  // The TypeScript kernels recycle through a pool of their own (as the product would).
  const tsPool = new TileBufferPool();
  const before = threadTilePool.stats();
  for (const p of pages) {
    const one = Object.fromEntries(cases.map((c) => [c, samples()])) as Record<(typeof cases)[number], Samples>;
    let tiles = 0;
    for (let r = 0; r < reps; r++) {
      const a = await timed(() => preprocessBaseline({ path: p.path }, PRE));
      // Before this change: every page's tiles in a new buffer (an empty pool).
      const b = await timed(() => preprocessHere({ path: p.path }, PRE, undefined, undefined, new TileBufferPool()));
      // The product's steady state: the buffer the previous page's consumer released.
      const c = await timed(() => preprocessHere({ path: p.path }, PRE));
      const d = await timed(() => preprocessHere({ path: p.path }, PRE, undefined, 'js', tsPool));
      for (const [name, x] of [
        ['new', b],
        ['new (recycled buffer)', c],
        ['new in TypeScript', d],
      ] as const)
        if (!sameValues(a.value, x.value))
          throw new Error(`${p.name}: the ${name} tiles differ from the old ones (they must be equal bit for bit)`);
      tiles = b.value.grid.images;
      // As the consumer does once the vision encoder has read them (server/vlm/model.ts prepare).
      releaseTiles(c.value);
      tsPool.release(d.value.pixelValues.buffer as ArrayBuffer);
      push(one.old, a);
      push(one.fresh, b);
      push(one.recycled, c);
      push(one.ts, d);
    }
    const m = Object.fromEntries(cases.map((k) => [k, med(one[k])])) as Record<
      (typeof cases)[number],
      { ms: number; cpuMs: number }
    >;
    for (const k of cases) push(all[k], m[k]);
    rows.push([
      p.name,
      String(tiles),
      fmt(m.old.ms, 0),
      fmt(m.fresh.ms, 0),
      fmt(m.recycled.ms, 0),
      fmt(m.old.ms / m.recycled.ms, 1),
      fmt(m.old.cpuMs, 0),
      fmt(m.fresh.cpuMs, 0),
      fmt(m.recycled.cpuMs, 0),
      fmt(m.old.cpuMs / m.recycled.cpuMs, 1),
      fmt(m.ts.ms, 0),
    ]);
  }
  const after = threadTilePool.stats();
  printPerPage(rows, all, reps, {
    cold,
    reused: after.reused - before.reused,
    fresh: after.fresh - before.fresh,
  });
}

type Case = 'old' | 'fresh' | 'recycled' | 'ts';

function printPerPage(
  rows: string[][],
  all: Record<Case, Samples>,
  reps: number,
  runs: { cold: { ms: number; cpuMs: number }; reused: number; fresh: number },
): void {
  const { cold } = runs;
  console.log(
    `\n== 1. preprocessing per page, medians of ${reps} (old = before issue 38; new = fresh buffer each page; recycled = the buffer the previous page's consumer released; same run, alternating) ==`,
  );
  console.log(
    textTable(
      [
        'page',
        'tiles',
        'old ms',
        'new ms',
        'recycled ms',
        'old ÷ recycled',
        'old CPU ms',
        'new CPU ms',
        'recycled CPU ms',
        'CPU old ÷ recycled',
        'TS recycled ms',
      ],
      rows,
    ),
  );
  const o = med(all.old);
  const r = med(all.recycled);
  const range = (xs: number[]) => `${fmt(Math.min(...xs), 0)}–${fmt(Math.max(...xs), 0)}`;
  const line = (name: string, c: Samples) => {
    const m = { ms: median(c.ms), cpuMs: median(c.cpuMs) };
    return [
      name,
      fmt(m.ms, 0),
      range(c.ms),
      fmt(m.cpuMs, 0),
      range(c.cpuMs),
      fmt(o.ms / m.ms, 1),
      fmt(o.cpuMs / m.cpuMs, 1),
    ];
  };
  const head = ['all pages (medians of the per-page medians)', 'wall ms', 'wall range', 'CPU ms', 'CPU range'];
  console.log(
    textTable(
      [...head, 'old ÷ this (wall)', 'old ÷ this (CPU)'],
      [
        line('old (before issue 38)', all.old),
        line('new, fresh buffer', all.fresh),
        line('new, recycled buffer (product)', all.recycled),
        line('new in TypeScript, recycled', all.ts),
      ],
    ),
  );
  console.log(
    `recycled buffers: ${runs.reused} of ${runs.reused + runs.fresh} results written into a released buffer; first call of a fresh process ${fmt(cold.ms, 0)} ms (${fmt(cold.cpuMs, 0)} ms CPU)`,
  );
  console.log(
    `TARGET ≤ 300 ms per page (new, recycled buffer): wall ${fmt(r.ms, 0)} ms ${r.ms <= 300 ? 'MET' : 'NOT met'}, CPU ${fmt(r.cpuMs, 0)} ms ${r.cpuMs <= 300 ? 'MET' : 'NOT met'} (${load()}; on a busy machine wall time includes waiting for a core, the CPU time is what an idle machine's wall time would be)`,
  );
  console.log(
    'tiles: new = recycled = TypeScript = old bit for bit on every page (old = transformers on the reference images)',
  );
}

/**
 * Part 2: the pages in order, each followed by `decodeMs` of work on this thread; the wait for
 * each page's tiles, computed here or (from page 2 on) prefetched while the page before decoded.
 */
async function overlap(pages: Page[], decodeMs: number): Promise<void> {
  const workerPath = findPreprocessWorker();
  if (!workerPath) throw new Error('dist/preprocessWorker.js is missing: build with `node esbuild.mjs`');
  const order = pages.map((p) => ({ path: p.path }));
  const here: number[] = [];
  for (const image of order) {
    const t = await timed(() => preprocessHere(image, PRE));
    here.push(t.ms);
    releaseTiles(t.value);
    busy(decodeMs);
  }
  const ahead = new PreprocessAhead(workerPath, 2);
  const early: number[] = [];
  try {
    for (let i = 0; i < order.length; i++) {
      // As the orchestrator does: page i+1 is named before page i goes to the decoder.
      if (i + 1 < order.length) ahead.prefetch(order[i + 1], PRE);
      const t = await timed(async () => (await ahead.take(order[i], PRE)) ?? preprocessHere(order[i], PRE));
      early.push(t.ms);
      // The vision encoder has read the tiles: their buffer goes back to the thread that wrote it.
      releaseTiles(t.value);
      busy(decodeMs);
    }
  } finally {
    await ahead.close();
  }
  const recycled = ahead.recycled;
  console.log(
    `\n== 2. overlap: ${order.length} pages in order, each decoded for ${decodeMs} ms of CPU on this thread ==`,
  );
  const row = (name: string, w: number[]) => [name, fmt(median(w), 0), fmt(w[0], 0), fmt(median(w.slice(1)), 0)];
  console.log(
    textTable(
      ['preprocessing', 'wait per page (median)', 'first page', 'later pages (median)'],
      [row('on the decoding thread', here), row('ahead, on its thread', early)],
    ),
  );
  console.log(
    `(look-ahead results written into a buffer given back by the VLM side: ${recycled} of ${order.length - 1}; ${load()})`,
  );
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const reps = arg('--reps', quick ? 2 : 7);
  const want = arg('--pages', quick ? 1 : 12);
  const decodeMs = arg('--decode-ms', quick ? 300 : 1500);
  const dir = mkdtempSync(join(tmpdir(), 'folio-bench-preprocess-'));
  try {
    const refs = referencePages().slice(0, quick ? 1 : undefined);
    const corpus = want > 0 ? await corpusPages(dir, want) : [];
    const only = argText('--only');
    const pages = [...refs, ...corpus].filter((p) => !only || p.name.includes(only));
    requireMeasured(
      pages.length,
      `the page set (${refs.length} reference images, ${corpus.length} corpus pages of 13–17 tiles${only ? `, kept by --only ${only}` : ''})`,
      'Check ../shared/models/granite-docling-258M/reference and the corpus (FOLIO_CORPUS).',
    );
    console.log(
      `VLM preprocessing benchmark: ${pages.length} pages, ${reps} repetitions each, new kernel ${defaultResampleKernel()}; ${load()}`,
    );
    await perPage(pages, reps);
    await overlap(pages, decodeMs);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: Error) => {
  console.error(e.message);
  process.exit(1);
});
