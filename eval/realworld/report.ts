/**
 * The real-world set's scores and report files, the working and the sealed part side by side
 * (issue 40, eval/realworld/sealed.ts).
 *
 * What leaves this module about the sealed part is aggregates only — pass counts per converter,
 * per test type and per failure class. Its test ids, its failing tests and its pages' outputs are
 * never printed, written to results.json, folio-failures.md or outputs/: a person who reads the
 * reports while working cannot learn which sealed test a rule should fit.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PeerOutput } from '../peers/types';
import { fmt, markdownTable, textTable } from '../report/textTable';
import { runTest, TEST_TYPES, type PageTest } from './checks';
import { FAILURE_CLASSES, type FailureClass } from './classes';
import { pageKey, partOf, SEALED_FIRST_BYTE_BELOW, type Part } from './sealed';

export interface Rate {
  passed: number;
  total: number;
}

/** One working-part test's outcome for one converter. */
export interface TestResult {
  id: string;
  peer: string;
  passed: boolean;
  why: string;
}

/** A part's aggregates: per converter, per test type (and `overall`) and per failure class. */
export interface PartTally {
  tests: number;
  pages: number;
  byType: Record<string, Record<string, Rate>>;
  byClass: Record<string, Record<string, Rate>>;
}

/** What results.json holds: per-test outcomes of the working part, aggregates of both parts. */
export interface RealworldResults {
  date: string;
  tests: number;
  pages: number;
  sealedRule: string;
  skipped: string[];
  working: PartTally;
  sealed: PartTally;
  /** The working part's tests only. */
  results: TestResult[];
}

export const SEALED_RULE = `a page is sealed when SHA-256 of its key "<pdf>#<page>" starts with a byte < ${SEALED_FIRST_BYTE_BELOW}`;

const PARTS: Part[] = ['working', 'sealed'];

function add(m: Record<string, Rate>, key: string, ok: boolean): void {
  const r = (m[key] ??= { passed: 0, total: 0 });
  r.total++;
  if (ok) r.passed++;
}

/**
 * Runs every test on every converter's output of its page (`pages`: page key → one-page PDF;
 * `outputs`: converter → PDF → output). A converter that failed on a page fails its tests.
 */
export function scoreParts(
  tests: PageTest[],
  pages: Map<string, string>,
  outputs: Map<string, Map<string, PeerOutput>>,
  skipped: string[] = [],
): RealworldResults {
  const tally = (part: Part): PartTally => {
    const mine = tests.filter((t) => partOf(t) === part);
    return {
      tests: mine.length,
      pages: new Set(mine.map((t) => pageKey(t.pdf, t.page))).size,
      byType: {},
      byClass: {},
    };
  };
  const parts = { working: tally('working'), sealed: tally('sealed') };
  const results: TestResult[] = [];
  for (const [peer, outs] of outputs) {
    for (const p of PARTS) {
      parts[p].byType[peer] = {};
      parts[p].byClass[peer] = {};
    }
    for (const t of tests) {
      const pdf = pages.get(pageKey(t.pdf, t.page));
      const md = pdf === undefined ? undefined : outs.get(pdf)?.text;
      const r =
        md === undefined
          ? { passed: false, why: `no output: ${(pdf && outs.get(pdf)?.error) ?? 'missing'}` }
          : runTest(t, md);
      const part = partOf(t);
      const p = parts[part];
      add(p.byType[peer], t.type, r.passed);
      add(p.byType[peer], 'overall', r.passed);
      for (const c of t.class) add(p.byClass[peer], c, r.passed);
      if (part === 'working') results.push({ id: t.id, peer, ...r });
    }
  }
  return {
    date: new Date().toISOString(),
    tests: tests.length,
    pages: new Set(tests.map((t) => pageKey(t.pdf, t.page))).size,
    sealedRule: SEALED_RULE,
    skipped,
    ...parts,
    results,
  };
}

const rate = (r: Rate | undefined) => (r && r.total ? fmt(r.passed / r.total) : '–');

/** Rows (test types then `overall`, or classes) × columns (tests per part, then per converter its working and sealed rate). */
export function sideBySide(
  res: RealworldResults,
  tests: PageTest[],
  by: 'type' | 'class',
): { head: string[]; rows: string[][] } {
  const peers = Object.keys(res.working.byType);
  const count = (part: Part, key: string) =>
    tests.filter(
      (t) =>
        partOf(t) === part &&
        (by === 'class' ? t.class.includes(key as FailureClass) : key === 'overall' || t.type === key),
    ).length;
  const keys =
    by === 'type'
      ? [...TEST_TYPES.filter((ty) => tests.some((t) => t.type === ty)), 'overall']
      : (Object.keys(FAILURE_CLASSES) as FailureClass[]).filter((c) => tests.some((t) => t.class.includes(c)));
  const head = [
    by === 'type' ? 'test type' : 'class',
    'working tests',
    'sealed tests',
    ...peers.flatMap((p) => [`${p} working`, `${p} sealed`]),
  ];
  const rows = keys.map((k) => [
    k,
    String(count('working', k)),
    String(count('sealed', k)),
    ...peers.flatMap((p) => PARTS.map((part) => rate((by === 'type' ? res[part].byType : res[part].byClass)[p]?.[k]))),
  ]);
  return { head, rows };
}

function describe(t: PageTest): string {
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
}

/**
 * Prints the side-by-side tables and writes report.md, folio-failures.md (working part only),
 * results.json (per-test rows of the working part, aggregates of both) and outputs/ (working
 * pages' outputs only) into `out`.
 */
export function writeRealworldReport(
  out: string,
  tests: PageTest[],
  pages: Map<string, string>,
  outputs: Map<string, Map<string, PeerOutput>>,
  skipped: string[],
  log: (s: string) => void = console.log,
): RealworldResults {
  const res = scoreParts(tests, pages, outputs, skipped);
  const byType = sideBySide(res, tests, 'type');
  const byClass = sideBySide(res, tests, 'class');
  const split = `working part: ${res.working.tests} tests on ${res.working.pages} pages; sealed part: ${res.sealed.tests} tests on ${res.sealed.pages} pages (${SEALED_RULE}; eval/realworld/sealed.ts)`;
  log(
    `\n== realworld: pass rate per test type (${res.tests} tests, ${res.pages} pages) ==\n${split}\n${textTable(byType.head, byType.rows)}`,
  );
  log(`\n== realworld: pass rate per failure class, working | sealed ==\n${textTable(byClass.head, byClass.rows)}`);

  const testById = new Map(tests.map((t) => [t.id, t]));
  const folioFails = res.results.filter((r) => r.peer === 'Folio' && !r.passed);
  const sealedFolio = res.sealed.byType.Folio?.overall;
  const sealedFails = sealedFolio ? sealedFolio.total - sealedFolio.passed : 0;
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
  const verified = tests.filter((t) => t.checked === 'verified').length;

  mkdirSync(out, { recursive: true });
  const md = [
    '# Real-world page set (issues 23, 40)',
    '',
    `${res.tests} olmOCR-bench-style tests on ${res.pages} real pages (${verified} checked by a person against the rendered page); each converter ran on the same one-page PDFs in this run. Pass rate = tests passed / tests.`,
    '',
    `The set has two parts: ${split}. The sealed part is reported by its rates only; its tests and outputs are not shown.`,
    '',
    '## Per test type, working | sealed',
    '',
    markdownTable(byType.head, byType.rows),
    '',
    '## Per failure class, working | sealed',
    '',
    markdownTable(byClass.head, byClass.rows),
    '',
    ...(skipped.length ? ['## Skipped converters', '', ...skipped.map((s) => `- ${s}`), ''] : []),
    `Folio fails ${folioFails.length} tests of the working part (folio-failures.md) and ${sealedFails} of the sealed part (not listed).`,
    '',
  ];
  writeFileSync(join(out, 'report.md'), md.join('\n'));
  writeFileSync(
    join(out, 'folio-failures.md'),
    [
      '# Tests Folio fails (working part)',
      '',
      `The sealed part's ${sealedFails} failing tests are not listed (eval/realworld/sealed.ts).`,
      '',
      markdownTable(['test', 'page', 'class', 'test', 'why'], failRows),
      '',
    ].join('\n'),
  );
  writeFileSync(join(out, 'results.json'), JSON.stringify(res, null, 1) + '\n');
  // Converter outputs of the working pages beside the report, to read what a failing test saw.
  const sealedPdfs = new Set(tests.filter((t) => partOf(t) === 'sealed').map((t) => pages.get(pageKey(t.pdf, t.page))));
  writeOutputs(
    out,
    new Map(
      [...outputs].map(([peer, outs]) => [peer, new Map([...outs].filter(([pdf]) => !sealedPdfs.has(pdf)))] as const),
    ),
  );
  return res;
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
