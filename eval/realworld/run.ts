/**
 * `npm run eval -- --sets realworld`: the real-world page set (issue 23) through Folio and the
 * peers in one run. Cuts every page the tests name into a one-page PDF, converts them all with
 * each converter, runs every olmOCR-bench-style test on each output, and reports pass rates per
 * test type and per failure class, side by side, plus every test Folio fails.
 *
 * Writes <out>/realworld/report.md, results.json (every test × converter outcome) and
 * folio-failures.md. Throws when the set is empty or a page cannot be produced; a converter that
 * fails on a page fails that page's tests (its output is empty), it is not skipped.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { corpusRoot } from '../corpus';
import { folioPeer } from '../peers/folio';
import { pdf2mdPeer } from '../peers/pdf2md';
import { pdftotextPeer } from '../peers/pdftotext';
import { pymupdfPeer } from '../peers/pymupdf';
import type { Peer, PeerOutput } from '../peers/types';
import { requireMeasured } from '../report/nothingMeasured';
import { fmt, markdownTable, textTable } from '../report/textTable';
import { runTest, TEST_TYPES, type PageTest } from './checks';
import { FAILURE_CLASSES, type FailureClass } from './classes';
import { materializePages } from './pages';
import { readTests, setDir, TESTS_FILE } from './set';

export const REALWORLD_SET = 'realworld';

export interface RealworldOptions {
  outDir: string;
  peers?: string[];
  jobs: number;
  timeoutMs: number;
  /** Only tests whose id or pdf contains one of these strings (for a quick look at a few pages). */
  only?: string[];
}

interface TestResult {
  id: string;
  peer: string;
  passed: boolean;
  why: string;
}

interface Rate {
  passed: number;
  total: number;
}
const rate = (r: Rate | undefined) => (r && r.total ? fmt(r.passed / r.total) : '–');
function add(m: Map<string, Rate>, key: string, ok: boolean): void {
  const r = m.get(key) ?? { passed: 0, total: 0 };
  r.total++;
  if (ok) r.passed++;
  m.set(key, r);
}

export async function runRealworld(repo: string, o: RealworldOptions): Promise<number> {
  const dir = setDir(repo);
  let tests = readTests(join(dir, TESTS_FILE));
  if (o.only?.length) tests = tests.filter((t) => o.only!.some((s) => t.id.includes(s) || t.pdf.includes(s)));
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

  const results: TestResult[] = [];
  const byType = new Map<string, Map<string, Rate>>();
  const byClass = new Map<string, Map<string, Rate>>();
  for (const [peer, outs] of outputs) {
    const t1 = new Map<string, Rate>();
    const c1 = new Map<string, Rate>();
    for (const t of tests) {
      const pdf = pages.get(`${t.pdf}#${t.page}`)!;
      const md = outs.get(pdf)?.text;
      const r =
        md === undefined ? { passed: false, why: `no output: ${outs.get(pdf)?.error ?? 'missing'}` } : runTest(t, md);
      results.push({ id: t.id, peer, ...r });
      add(t1, t.type, r.passed);
      add(t1, 'overall', r.passed);
      for (const c of t.class) add(c1, c, r.passed);
    }
    byType.set(peer, t1);
    byClass.set(peer, c1);
  }

  const peerNames = [...outputs.keys()];
  const typeCols = [...TEST_TYPES.filter((ty) => tests.some((t) => t.type === ty)), 'overall'];
  const count = (ty: string) => (ty === 'overall' ? tests.length : tests.filter((t) => t.type === ty).length);
  const typeHead = ['converter', ...typeCols.map((c) => `${c} (${count(c)})`)];
  const typeRows = peerNames.map((p) => [p, ...typeCols.map((c) => rate(byType.get(p)!.get(c)))]);
  const classes = (Object.keys(FAILURE_CLASSES) as FailureClass[]).filter((c) =>
    tests.some((t) => t.class.includes(c)),
  );
  const classHead = ['class', 'tests', ...peerNames];
  const classRows = classes.map((c) => [
    `${c}`,
    String(tests.filter((t) => t.class.includes(c)).length),
    ...peerNames.map((p) => rate(byClass.get(p)!.get(c))),
  ]);
  const verified = tests.filter((t) => t.checked === 'verified').length;
  console.log(
    `\n== realworld: pass rate per test type (${tests.length} tests, ${pagePdfs.length} pages) ==\n${textTable(typeHead, typeRows)}`,
  );
  console.log(`\n== realworld: pass rate per failure class ==\n${textTable(classHead, classRows)}`);

  const folioFails = results.filter((r) => r.peer === 'Folio' && !r.passed);
  const testById = new Map(tests.map((t) => [t.id, t]));
  const describe = (t: PageTest) => {
    switch (t.type) {
      case 'present':
      case 'absent':
        return `${t.type} "${t.text.slice(0, 80)}"`;
      case 'order':
        return `"${t.before.slice(0, 40)}" before "${t.after.slice(0, 40)}"`;
      case 'table':
        return `cell "${t.cell.slice(0, 40)}"`;
      case 'math':
        return `math ${t.math.slice(0, 60)}`;
      case 'baseline':
        return 'baseline';
    }
  };
  const failRows = folioFails.map((r) => {
    const t = testById.get(r.id)!;
    return [
      r.id,
      `${t.pdf} p${t.page}`,
      t.class.join(' '),
      describe(t).replace(/\|/g, '\\|'),
      r.why.replace(/\|/g, '\\|').slice(0, 160),
    ];
  });

  mkdirSync(out, { recursive: true });
  const md = [
    '# Real-world page set (issue 23)',
    '',
    `${tests.length} olmOCR-bench-style tests on ${pagePdfs.length} real pages (${verified} checked by a person against the rendered page); each converter ran on the same one-page PDFs in this run. Pass rate = tests passed / tests.`,
    '',
    '## Per test type',
    '',
    markdownTable(typeHead, typeRows),
    '',
    '## Per failure class (issue 23)',
    '',
    markdownTable(classHead, classRows),
    '',
    ...(skipped.length ? ['## Skipped converters', '', ...skipped.map((s) => `- ${s}`), ''] : []),
    `Folio fails ${folioFails.length} tests: folio-failures.md.`,
    '',
  ];
  writeFileSync(join(out, 'report.md'), md.join('\n'));
  writeFileSync(
    join(out, 'folio-failures.md'),
    ['# Tests Folio fails', '', markdownTable(['test', 'page', 'class', 'test', 'why'], failRows), ''].join('\n'),
  );
  writeFileSync(
    join(out, 'results.json'),
    JSON.stringify(
      {
        date: new Date().toISOString(),
        tests: tests.length,
        pages: pagePdfs.length,
        skipped,
        byType: Object.fromEntries([...byType].map(([p, m]) => [p, Object.fromEntries(m)])),
        byClass: Object.fromEntries([...byClass].map(([p, m]) => [p, Object.fromEntries(m)])),
        results,
      },
      null,
      1,
    ) + '\n',
  );
  // Converter outputs beside the report, to read what a failing test saw.
  writeOutputs(out, outputs);
  console.log(`\nrealworld: wrote ${join(out, 'report.md')}, folio-failures.md, results.json, outputs/`);
  return 0;
}

/** Every converter's output beside a report (`<out>/outputs/<peer>/<page>.md`), to read what a score saw. */
export function writeOutputs(out: string, outputs: Map<string, Map<string, PeerOutput>>): void {
  for (const [peer, outs] of outputs) {
    const d = join(out, 'outputs', peer.replace(/\W+/g, '_'));
    mkdirSync(d, { recursive: true });
    for (const [pdf, r] of outs)
      writeFileSync(
        join(
          d,
          pdf
            .split('/')
            .pop()!
            .replace(/\.pdf$/, '.md'),
        ),
        r.text ?? `<!-- failed: ${r.error} -->\n`,
      );
  }
}
