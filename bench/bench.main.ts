/**
 * `npm run bench` (issues 2 and 4): speed and memory, Folio next to its peers in the same run.
 *
 *   node out/scripts/bench/bench.main.js [--jobs 2] [--big-pages 1000] [--skip-big]
 *                                        [--parts born,scanned,stream,office,queue,startup] [--queue-docs 12]
 *                                        [--office-dir eval/office/made] [--office-runs 3]
 *                                        [--startup-pdf <corpus file>] [--startup-runs 7] [--out eval/out] [--quick]
 *
 * 1. Born-digital pages/s end to end (CLI, no page images) on the corpus sets with ground
 *    truth, for Folio and each peer; the ratio Folio / peer.
 * 2. Seconds per scanned page (docling/ocr), same converters.
 * 3. Through the backend process: time to the first page of a 50-page PDF, and a generated
 *    1,000-page PDF: peak RSS (target < 1 GiB) and whether pages stream from the first on.
 * 4. Office/HTML documents (issue 41): one DOCX, PPTX, XLSX and HTML file through `folio convert`
 *    next to the same document's PDF export through Folio and pdftotext, same run (bench/office.ts).
 * 5. `--parts queue` (not by default: needs redis-server): documents per minute in-process and
 *    through the queue with one and two workers, first page through `folio serve` (bench/queue.ts).
 * 6. `--parts startup` (not by default): a one-page PDF through the CLI, whole process, next to
 *    pdf2md's whole process, alternating, medians and the ratio (target ≤ 1.5; bench/startup.ts).
 * --quick (the CI smoke test): 2 born-digital files, 1 scan, Folio and pdftotext only, a
 * 10-page stream, one office run per format and no big PDF. Prints tables and writes <out>/bench.json. Exit non-zero on
 * harness errors and when a part asked for measured nothing (no files, no page converted).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { corpusRoot, inSets, readManifest } from '../eval/corpus';
import { folioPeer } from '../eval/peers/folio';
import { pdf2mdPeer } from '../eval/peers/pdf2md';
import { pdftotextPeer } from '../eval/peers/pdftotext';
import { pymupdfPeer } from '../eval/peers/pymupdf';
import type { Peer } from '../eval/peers/types';
import { makePdf, textPage } from '../eval/pdf/makePdf';
import { fmt, textTable } from '../eval/report/textTable';
import { repoRoot } from '../eval/repo';
import { requireMeasured } from '../eval/report/nothingMeasured';
import { convertThroughBackend, type StreamFigures } from './backendRun';
import { measure, type Throughput } from './throughput';
import { benchQueue } from './queue';
import { benchStartup } from './startup';
import { benchOffice } from './office';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** Every part `--parts` accepts (the default runs the first four); docs/benchmarks name them all. */
export const PARTS = ['born', 'scanned', 'stream', 'office', 'queue', 'startup'] as const;

const MiB = 2 ** 20;
const BORN_DIGITAL = ['docling-src-rendered', 'docling/pdf', 'docling/odf', 'selfmade-example'];
const SCANNED = ['docling/ocr'];

function table(title: string, rows: Throughput[], folio: Throughput | undefined, scanned: boolean): string {
  const head = [
    'converter',
    'files ok',
    'pages',
    'wall s',
    scanned ? 's/page' : 'pages/s',
    'Folio ÷ peer',
    'peak RSS MiB',
  ];
  const body = rows.map((r) => {
    const ratio =
      folio && r.peer !== folio.peer
        ? scanned
          ? folio.secPerPage / r.secPerPage
          : folio.pagesPerSec / r.pagesPerSec
        : NaN;
    return [
      r.peer,
      `${r.files - r.failed}/${r.files}`,
      String(r.pages),
      fmt(r.wallMs / 1000, 1),
      scanned ? fmt(r.secPerPage, 3) : fmt(r.pagesPerSec, 1),
      r.peer === folio?.peer ? '1' : fmt(ratio, 3),
      fmt(r.peakRss / MiB, 0),
    ];
  });
  return `== ${title} ==\n${textTable(head, body)}`;
}

async function main(): Promise<number> {
  const repo = repoRoot();
  const root = corpusRoot(repo);
  const jobs = Number(arg('jobs') ?? 2);
  const quick = process.argv.includes('--quick');
  const parts = new Set((arg('parts') ?? 'born,scanned,stream,office').split(','));
  const unknown = [...parts].filter((p) => !(PARTS as readonly string[]).includes(p));
  if (unknown.length > 0) throw new Error(`unknown --parts ${unknown.join(',')}: use ${PARTS.join(', ')}`);
  const outDir = resolve(arg('out') ?? join(repo, 'eval', 'out'));
  const manifest = readManifest(root);
  // Password-protected and broken files (no page count) are not throughput material.
  // --quick takes the shortest files (by pages, then name), so the smoke test stays short.
  const pick = (es: ReturnType<typeof readManifest>, n: number) =>
    quick ? [...es].sort((x, y) => (x.pages ?? 0) - (y.pages ?? 0) || x.rel.localeCompare(y.rel)).slice(0, n) : es;
  const born = pick(
    inSets(manifest, BORN_DIGITAL).filter((e) => e.pages !== undefined),
    2,
  );
  const scans = pick(
    inSets(manifest, SCANNED).filter((e) => e.pages !== undefined),
    1,
  );
  const peers: Peer[] = quick
    ? [folioPeer(repo), pdftotextPeer(false)]
    : [folioPeer(repo), pdftotextPeer(false), pdftotextPeer(true), pdf2mdPeer(repo), pymupdfPeer()];
  const folio = peers[0];
  const why = folio.unavailable();
  if (why) throw new Error(why);
  const work = mkdtempSync(join(tmpdir(), 'folio-bench-'));
  const results: Record<string, unknown> = { date: new Date().toISOString(), jobs };
  try {
    const run = async (label: string, entries: typeof born, scanned: boolean) => {
      requireMeasured(
        entries.length,
        `the ${label} set`,
        `No PDF of ${(scanned ? SCANNED : BORN_DIGITAL).join(', ')} with a page count in ${root}/MANIFEST.tsv.`,
      );
      const rows: Throughput[] = [];
      for (const p of peers) {
        const w = p.unavailable();
        if (w) {
          console.error(`bench: skipping ${p.name}: ${w}`);
          continue;
        }
        console.error(`bench: ${label}: ${p.name}…`);
        rows.push(await measure(p, entries, join(work, label), jobs));
      }
      const folioRow = rows.find((r) => r.peer === 'Folio');
      requireMeasured(
        folioRow?.pages ?? 0,
        `Folio's ${label} row`,
        `Folio converted none of the ${entries.length} files (see the errors above).`,
      );
      console.log(
        '\n' +
          table(
            `${label}: ${entries.length} files, ${entries.reduce((s, e) => s + (e.pages ?? 0), 0)} pages, ${jobs} at once`,
            rows,
            rows.find((r) => r.peer === 'Folio'),
            scanned,
          ),
      );
      return rows;
    };
    if (parts.has('born')) {
      results.bornDigital = await run('born-digital', born, false);
      const f = (results.bornDigital as Throughput[]).find((r) => r.peer === 'Folio');
      if (f) console.log(`Folio born-digital: ${fmt(f.pagesPerSec, 1)} pages/s end to end (target ≥ 10)`);
    }
    if (parts.has('scanned')) {
      results.scanned = await run('scanned', scans, true);
      const s = (results.scanned as Throughput[]).find((r) => r.peer === 'Folio');
      if (s)
        console.log(
          `Folio scanned: ${fmt(s.secPerPage, 2)} s/page (target ≤ 3)${s.failed ? `; ${s.failed} file(s) failed` : ''}`,
        );
    }
    if (parts.has('office'))
      results.office = await benchOffice(
        repo,
        resolve(arg('office-dir') ?? join(repo, 'eval', 'office', 'made')),
        work,
        Number(arg('office-runs') ?? (quick ? 1 : 3)),
      );
    // The queue takes multi-page documents from the whole born-digital set (--quick keeps 2 of them).
    if (parts.has('queue'))
      results.queue = await benchQueue(
        repo,
        inSets(manifest, BORN_DIGITAL).filter((e) => e.pages !== undefined),
        work,
        Number(arg('queue-docs') ?? (quick ? 2 : 12)),
      );
    if (parts.has('startup')) {
      // A one-page page of a paper (text, a table) by default; any corpus file or path with --startup-pdf.
      const rel = arg('startup-pdf') ?? 'docling/pdf/2305.03393v1-pg9.pdf';
      const pdf = existsSync(rel) ? resolve(rel) : join(root, rel);
      requireMeasured(existsSync(pdf) ? 1 : 0, `the start-up PDF ${rel}`, `Not found in ${root} (or as a path).`);
      results.startup = await benchStartup(repo, pdf, work, Number(arg('startup-runs') ?? (quick ? 3 : 7)));
    }
    // Streaming and memory through the backend process, on generated text PDFs.
    const stream = async (pages: number, timeoutMs: number): Promise<StreamFigures> => {
      const file = join(work, `generated-${pages}.pdf`);
      writeFileSync(file, makePdf(Array.from({ length: pages }, (_, i) => textPage(i + 1))));
      console.error(`bench: backend: ${pages}-page PDF…`);
      return convertThroughBackend(file, timeoutMs);
    };
    const s50 = parts.has('stream') ? await stream(quick ? 10 : 50, 300_000) : undefined;
    if (s50) {
      requireMeasured(
        s50.pages,
        `the backend stream of a generated ${quick ? 10 : 50}-page PDF`,
        `The backend delivered no page (${s50.pageErrors} page errors).`,
      );
      results.fifty = { ...s50, arrivals: undefined };
      console.log(
        `\n== backend, generated ${quick ? 10 : 50}-page PDF ==\ntime to first page ${fmt(s50.firstPageMs / 1000, 2)} s; all ${s50.pages} pages in ${fmt(s50.totalMs / 1000, 1)} s (${fmt(s50.pages / (s50.totalMs / 1000), 1)} pages/s); peak RSS ${fmt(s50.peakRss / MiB, 0)} MiB; pages in order: ${s50.inOrder}`,
      );
    }
    if (s50 && !quick && !process.argv.includes('--skip-big')) {
      const n = Number(arg('big-pages') ?? 1000);
      const big = await stream(n, 1_800_000);
      requireMeasured(
        big.pages,
        `the backend stream of a generated ${n}-page PDF`,
        `The backend delivered no page (${big.pageErrors} page errors).`,
      );
      results.big = { ...big, arrivals: undefined };
      // Streaming: the first page arrives in the first half of the run and pages keep arriving
      // after it, rather than all at the end.
      const streams = big.firstPageMs <= big.totalMs / 2 && big.pagesAtHalfTime >= 1 && big.pagesAtHalfTime < big.pages;
      console.log(
        `\n== backend, generated ${n}-page PDF ==\n${big.pages} pages in ${fmt(big.totalMs / 1000, 1)} s (${fmt(big.pages / (big.totalMs / 1000), 1)} pages/s), ${big.pageErrors} page errors\n` +
          `first page after ${fmt(big.firstPageMs / 1000, 2)} s, last after ${fmt((big.arrivals[big.arrivals.length - 1] ?? NaN) / 1000, 1)} s; ${big.pagesAtHalfTime} pages received by half time; streams from the first page: ${streams ? 'yes' : 'NO'}; in order: ${big.inOrder}\n` +
          `backend peak RSS ${fmt(big.peakRss / MiB, 0)} MiB (target < 1024 MiB): ${big.peakRss < 1024 * MiB ? 'met' : 'NOT met'}`,
      );
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'bench.json'), JSON.stringify(results, null, 1) + '\n');
  console.log(`\nbench: wrote ${join(outDir, 'bench.json')}`);
  return 0;
}

main().then(
  (code) => (process.exitCode = code),
  (e) => {
    console.error(`bench: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    process.exitCode = 2;
  },
);
