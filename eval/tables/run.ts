/**
 * `npm run eval -- --sets tables` (in the default sets): the table-only set of issue 31
 * (eval/tables/set.ts) through Folio and the peers in one run. Every page is cut into a one-page
 * PDF (as the real-world set does), converted by each converter, and its output's tables (GFM
 * and HTML) scored against the page's ground-truth tables: cell F1 (non-empty cell texts as
 * multisets, spans expanded; eval/metrics/tables.ts) and TEDS as PubTabNet defines it
 * (eval/metrics/tedsPubTabNet.ts; per ground-truth table its best predicted table, mean per
 * page). Reported per converter overall, per ground-truth source, per producer (the page's PDF
 * Producer without its version) and per page. A plain-text converter writes no tables and
 * scores 0; a converter that fails on a page scores 0 there.
 *
 * Writes <out>/tables/report.md and results.json. Throws (non-zero exit) when the set is empty.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { corpusRoot } from '../corpus';
import { parseOutput } from '../metrics/score';
import { cellF1 } from '../metrics/tables';
import { pageTeds } from '../metrics/tedsPubTabNet';
import type { Table } from '../metrics/table';
import { folioPeer } from '../peers/folio';
import { pdf2mdPeer } from '../peers/pdf2md';
import { pdftotextPeer } from '../peers/pdftotext';
import { pymupdfPeer } from '../peers/pymupdf';
import type { Peer, PeerOutput } from '../peers/types';
import { materializePages } from '../realworld/pages';
import { setDir as realworldDir } from '../realworld/set';
import { writeOutputs } from '../realworld/run';
import { requireMeasured } from '../report/nothingMeasured';
import { fmt, markdownTable, textTable } from '../report/textTable';
import { readTableSet, tableSetDir, TABLES_FILE, type TablePage } from './set';

export const TABLES_SET = 'tables';

export interface TableSetOptions {
  outDir: string;
  peers?: string[];
  jobs: number;
  timeoutMs: number;
  /** Only pages whose id or pdf contains one of these strings. */
  only?: string[];
}

export interface PageScore {
  id: string;
  peer: string;
  producer: string;
  source: TablePage['source'];
  cellF1: number;
  teds: number;
  error?: string;
}

/** A PDF's Producer without its version ("pdfTeX-1.40.16" → "pdfTeX"); "(none)" when absent. */
export function producerName(raw: string | undefined): string {
  const s = (raw ?? '').replace(/[\s-]*v?\d[\d.]*.*$/, '').trim();
  return s || '(none)';
}

function producerOf(pdf: string): string {
  try {
    const info = execFileSync('pdfinfo', [pdf], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return producerName(/^Producer:\s*(.*)$/m.exec(info)?.[1]);
  } catch {
    return '(unknown)';
  }
}

/** The tables of one converter output. */
export function outputTables(text: string, format: Peer['format']): Table[] {
  return parseOutput(text, format)
    .filter((b) => b.kind === 'table' && b.table)
    .map((b) => b.table as Table);
}

export function scorePage(gt: Table[], output: PeerOutput | undefined, format: Peer['format']) {
  const pred = output?.text === undefined ? [] : outputTables(output.text, format);
  return { cellF1: cellF1(gt, pred).f1, teds: pageTeds(gt, pred)?.mean ?? 0 };
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : undefined);

/** Prints the tables and writes report.md, results.json and every output under `out`. */
function writeReport(
  out: string,
  pages: TablePage[],
  pdfOf: (p: TablePage) => string,
  producer: Map<string, string>,
  scores: PageScore[],
  outputs: Map<string, Map<string, PeerOutput>>,
  skipped: string[],
): void {
  const nTables = pages.reduce((s, p) => s + p.tables.length, 0);
  const peerNames = [...outputs.keys()];
  const groupRows = (key: (s: PageScore) => string) => {
    const groups = [...new Set(scores.map(key))].sort();
    return groups.map((g) => {
      const n = pages.filter((p) => scores.some((s) => s.id === p.id && key(s) === g)).length;
      return [
        g,
        String(n),
        ...peerNames.flatMap((peer) => {
          const xs = scores.filter((s) => s.peer === peer && key(s) === g);
          return [fmt(mean(xs.map((s) => s.cellF1))), fmt(mean(xs.map((s) => s.teds)))];
        }),
      ];
    });
  };
  const head = (first: string) => [first, 'pages', ...peerNames.flatMap((p) => [`${p} cell F1`, `${p} TEDS`])];
  const overall = groupRows(() => 'overall');
  const bySource = groupRows((s) => s.source);
  const byProducer = groupRows((s) => s.producer);
  const perPage = pages.map((p) => [
    p.id,
    producer.get(pdfOf(p))!,
    String(p.tables.length),
    ...peerNames.flatMap((peer) => {
      const s = scores.find((x) => x.id === p.id && x.peer === peer)!;
      return [fmt(s.cellF1), fmt(s.teds)];
    }),
  ]);
  const pageHead = ['page', 'producer', 'tables', ...peerNames.flatMap((p) => [`${p} cell F1`, `${p} TEDS`])];
  console.log(`\n== tables: ${nTables} tables on ${pages.length} pages ==\n${textTable(head('set'), overall)}`);
  console.log(`\n== tables: per ground-truth source ==\n${textTable(head('source'), bySource)}`);
  console.log(`\n== tables: per producer ==\n${textTable(head('producer'), byProducer)}`);
  console.log(`\n== tables: per page ==\n${textTable(pageHead, perPage)}`);

  mkdirSync(out, { recursive: true });
  const md = [
    '# Table-only set (issue 31)',
    '',
    `${nTables} ground-truth tables on ${pages.length} pages (person-written: eval/tables/tables.jsonl; Docling's ground truth in the corpus). Cell F1 over non-empty cell texts; TEDS as PubTabNet defines it (eval/metrics/tedsPubTabNet.ts). Means over pages; a converter without tables in its output scores 0.`,
    '',
    '## Overall',
    '',
    markdownTable(head('set'), overall),
    '',
    '## Per ground-truth source',
    '',
    markdownTable(head('source'), bySource),
    '',
    '## Per producer',
    '',
    markdownTable(head('producer'), byProducer),
    '',
    '## Per page',
    '',
    markdownTable(pageHead, perPage),
    '',
    ...(skipped.length ? ['## Skipped converters', '', ...skipped.map((s) => `- ${s}`), ''] : []),
  ];
  writeFileSync(join(out, 'report.md'), md.join('\n'));
  writeFileSync(
    join(out, 'results.json'),
    JSON.stringify({ date: new Date().toISOString(), pages: pages.length, tables: nTables, skipped, scores }, null, 1) +
      '\n',
  );
  writeOutputs(out, outputs);
}

export async function runTableSet(repo: string, o: TableSetOptions): Promise<number> {
  const root = corpusRoot(repo);
  let pages = readTableSet(repo, root);
  if (o.only?.length) pages = pages.filter((p) => o.only!.some((s) => p.id.includes(s) || p.pdf.includes(s)));
  requireMeasured(
    pages.length,
    `the table set (${join(tableSetDir(repo), TABLES_FILE)} and ${join(root, 'docling', 'pdf')})`,
    'Add pages with ground-truth tables, or check --only.',
  );
  const out = join(o.outDir, TABLES_SET);
  const files = materializePages(pages, join(out, 'pages'), root, realworldDir(repo));
  const pdfOf = (p: TablePage) => files.get(`${p.pdf}#${p.page}`)!;
  const pagePdfs = [...new Set(pages.map(pdfOf))];
  const producer = new Map(pagePdfs.map((f) => [f, producerOf(f)]));
  const nTables = pages.reduce((s, p) => s + p.tables.length, 0);
  console.error(`tables: ${nTables} ground-truth tables on ${pages.length} pages`);

  const all: Peer[] = [folioPeer(repo), pdftotextPeer(false), pdf2mdPeer(repo), pymupdfPeer()];
  const peers = all.filter((p) => !o.peers || o.peers.includes(p.name));
  requireMeasured(
    peers.length,
    `the converter list (--peers ${o.peers?.join(',')})`,
    `Known converters: ${all.map((p) => p.name).join(', ')}.`,
  );
  const scores: PageScore[] = [];
  const skipped: string[] = [];
  const outputs = new Map<string, Map<string, PeerOutput>>();
  const work = mkdtempSync(join(tmpdir(), 'folio-tables-'));
  try {
    for (const p of peers) {
      const why = p.unavailable();
      if (why) {
        if (p.name === 'Folio') throw new Error(why);
        skipped.push(`${p.name}: ${why}`);
        console.error(`tables: skipping ${p.name}: ${why}`);
        continue;
      }
      const r = await p.convertAll(pagePdfs, join(work, p.name.replace(/\W+/g, '_')), {
        jobs: o.jobs,
        timeoutMs: o.timeoutMs,
      });
      outputs.set(p.name, r.outputs);
      for (const page of pages) {
        const res = r.outputs.get(pdfOf(page));
        scores.push({
          id: page.id,
          peer: p.name,
          producer: producer.get(pdfOf(page))!,
          source: page.source,
          ...scorePage(page.tables, res, p.format),
          error: res?.text === undefined ? (res?.error ?? 'no output') : undefined,
        });
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  requireMeasured(outputs.size, 'every table', `No converter ran (skipped: ${skipped.join('; ')}).`);

  writeReport(out, pages, pdfOf, producer, scores, outputs, skipped);
  console.log(`\ntables: wrote ${join(out, 'report.md')}, results.json, outputs/`);
  return 0;
}
