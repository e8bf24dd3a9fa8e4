/**
 * `npm run eval -- --sets realworld`: the real-world page set (issue 23) through Folio and the
 * peers in one run. Cuts every page the tests name into a one-page PDF, converts them all with
 * each converter, runs every olmOCR-bench-style test on each output, and reports pass rates per
 * test type and per failure class, side by side, plus every test Folio fails.
 * The set's sealed part (eval/realworld/sealed.ts) is scored beside the working part and reported
 * by its rates only (eval/realworld/report.ts).
 *
 * Writes <out>/realworld/report.md, results.json (every working test × converter outcome, both
 * parts' aggregates) and folio-failures.md (the working part's). Throws when the set is empty or a page cannot be produced; a converter that
 * fails on a page fails that page's tests (its output is empty), it is not skipped.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { corpusRoot } from '../corpus';
import { folioPeer } from '../peers/folio';
import { pdf2mdPeer } from '../peers/pdf2md';
import { pdftotextPeer } from '../peers/pdftotext';
import { pymupdfPeer } from '../peers/pymupdf';
import type { Peer, PeerOutput } from '../peers/types';
import { requireMeasured } from '../report/nothingMeasured';
import { materializePages } from './pages';
import { writeRealworldReport } from './report';
import { inPart } from './sealed';
import { readTests, setDir, TESTS_FILE } from './set';

export const REALWORLD_SET = 'realworld';

export interface RealworldOptions {
  outDir: string;
  peers?: string[];
  jobs: number;
  timeoutMs: number;
  /** Only working tests whose id or pdf contains one of these strings (for a quick look at a few pages). */
  only?: string[];
}

export { writeOutputs } from './report';

export async function runRealworld(repo: string, o: RealworldOptions): Promise<number> {
  const dir = setDir(repo);
  let tests = readTests(join(dir, TESTS_FILE));
  if (o.only?.length) {
    // A look at a few tests is a look at working ones: a sealed test alone would show its outcome.
    const picked = tests.filter((t) => o.only!.some((s) => t.id.includes(s) || t.pdf.includes(s)));
    tests = inPart(picked, 'working');
    if (picked.length > tests.length)
      console.error(`realworld: --only leaves out ${picked.length - tests.length} tests of the sealed part`);
  }
  requireMeasured(tests.length, `the real-world set (${join(dir, TESTS_FILE)})`, 'Add tests, or check --only.');
  const root = corpusRoot(repo);
  const out = join(o.outDir, REALWORLD_SET);
  const pages = materializePages(tests, join(out, 'pages'), root, dir);
  const pagePdfs = [...new Set(pages.values())];
  console.error(`realworld: ${tests.length} tests on ${pagePdfs.length} pages`);

  const all: Peer[] = [folioPeer(repo), pdftotextPeer(false), pdf2mdPeer(repo), pymupdfPeer()];
  const peers = all.filter((p) => !o.peers || o.peers.includes(p.name));
  requireMeasured(
    peers.length,
    `the converter list (--peers ${o.peers?.join(',')})`,
    `Known converters: ${all.map((p) => p.name).join(', ')}.`,
  );
  const outputs = new Map<string, Map<string, PeerOutput>>();
  const skipped: string[] = [];
  const work = mkdtempSync(join(tmpdir(), 'folio-realworld-'));
  try {
    for (const p of peers) {
      const why = p.unavailable();
      if (why) {
        if (p.name === 'Folio') throw new Error(why);
        skipped.push(`${p.name}: ${why}`);
        console.error(`realworld: skipping ${p.name}: ${why}`);
        continue;
      }
      console.error(`realworld: ${p.name} on ${pagePdfs.length} pages…`);
      const r = await p.convertAll(pagePdfs, join(work, p.name.replace(/\W+/g, '_')), {
        jobs: o.jobs,
        timeoutMs: o.timeoutMs,
      });
      const failed = [...r.outputs.values()].filter((x) => x.text === undefined).length;
      console.error(`realworld: ${p.name} done in ${(r.wallMs / 1000).toFixed(1)} s, ${failed} pages failed`);
      outputs.set(p.name, r.outputs);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  requireMeasured(outputs.size, 'every table', `No converter ran (skipped: ${skipped.join('; ')}).`);

  writeRealworldReport(out, tests, pages, outputs, skipped);
  console.log(`\nrealworld: wrote ${join(out, 'report.md')}, folio-failures.md, results.json, outputs/`);
  return 0;
}
