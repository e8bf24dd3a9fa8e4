/**
 * `npm run eval:math`: formulas and tables on the typeset set (issue 11), Folio beside the peers.
 *
 *   node out/scripts/eval/gen/math/mathset.main.js [--set DIR] [--regen] [--peers Folio,pdftotext]
 *                                                [--out eval/out/mathset]
 *
 * Generates the set with the installed producers (eval/gen/math/producers.ts) into DIR (default
 * <out>/set) unless it is there, converts every PDF with every converter, and prints per
 * converter and producer: display and inline formula match (exact / normalized) and table cell
 * F1 and TEDS. Writes <out>/report.md with the formulas Folio missed. Exits non-zero when the
 * set is empty (nothing measured).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { repoRoot } from '../../repo';
import { folioPeer } from '../../peers/folio';
import { pdftotextPeer } from '../../peers/pdftotext';
import { pymupdfPeer } from '../../peers/pymupdf';
import { pdf2mdPeer } from '../../peers/pdf2md';
import type { Peer } from '../../peers/types';
import { markdownTable, textTable, fmt } from '../../report/textTable';
import { formulasOf, normalizeLatex } from '../../metrics/latex';
import { generate } from './producers';
import { emptyScore, rates, scoreInto, type SetScore } from './score';
import { DISPLAY, INLINE } from './sources';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** One peer's scores per producer and over all, and (for Folio) the formulas it missed. */
function scorePeer(
  p: Peer,
  outputs: ReadonlyMap<string, { text?: string }>,
  pdfs: string[],
  missed: string[],
  kindOf: Map<string, string>,
): { total: SetScore; byProducer: Map<string, SetScore> } {
  const total: SetScore = emptyScore();
  const byProducer = new Map<string, SetScore>();
  for (const pdf of pdfs) {
    const name = pdf
      .split('/')
      .pop()!
      .replace(/\.pdf$/, '');
    const producer = name.split('-')[0]!;
    const truth = readFileSync(pdf.replace(/\.pdf$/, '.md'), 'utf8');
    const text = outputs.get(pdf)?.text ?? '';
    const acc = byProducer.get(producer) ?? emptyScore();
    byProducer.set(producer, acc);
    scoreInto(acc, truth, text);
    scoreInto(total, truth, text);
    if (p.name === 'Folio') {
      const got = formulasOf(text);
      const have = new Set([...got.display, ...got.inline].map(normalizeLatex));
      const want = formulasOf(truth);
      for (const f of [...want.display, ...want.inline]) {
        if (!have.has(normalizeLatex(f)))
          missed.push(`| ${name} | ${kindOf.get(normalizeLatex(f)) ?? ''} | \`${f}\` |`);
      }
    }
  }
  return { total, byProducer };
}

/** A report row: the converter, the producer (or "all") and the rates. */
function scoreRow(peer: string, label: string, s: SetScore): string[] {
  const x = rates(s);
  return [
    peer,
    label,
    fmt(x.displayExact),
    fmt(x.displayNorm),
    fmt(x.inlineExact),
    fmt(x.inlineNorm),
    fmt(x.cellF1),
    fmt(x.teds),
  ];
}

async function main(): Promise<number> {
  const repo = repoRoot();
  const out = resolve(arg('out') ?? join(repo, 'eval', 'out', 'mathset'));
  const setDir = resolve(arg('set') ?? join(out, 'set'));
  if (process.argv.includes('--regen') || !existsSync(setDir) || !readdirSync(setDir).some((f) => f.endsWith('.pdf'))) {
    console.error(`eval:math: typesetting the set into ${setDir}…`);
    generate(setDir, repo);
  }
  const pdfs = readdirSync(setDir)
    .filter((f) => f.endsWith('.pdf') && existsSync(join(setDir, f.replace(/\.pdf$/, '.md'))))
    .map((f) => join(setDir, f))
    .sort();
  if (pdfs.length === 0)
    throw new Error(`no PDF with ground truth in ${setDir}: install xelatex, chromium or soffice, or pass --set`);
  const all: Peer[] = [folioPeer(repo), pdftotextPeer(false), pdf2mdPeer(repo), pymupdfPeer()];
  const wanted = arg('peers')
    ?.split(',')
    .map((s) => s.trim());
  const peers = all.filter((p) => !wanted || wanted.includes(p.name));
  const rows: string[][] = [];
  const missed: string[] = [];
  const work = mkdtempSync(join(tmpdir(), 'folio-mathset-'));
  const kindOf = new Map<string, string>([...DISPLAY, ...INLINE].map((f) => [normalizeLatex(f.latex), f.kind]));
  try {
    for (const p of peers) {
      const why = p.unavailable();
      if (why) {
        if (p.name === 'Folio') throw new Error(why);
        console.error(`eval:math: skipping ${p.name}: ${why}`);
        continue;
      }
      const r = await p.convertAll(pdfs, join(work, p.name), { jobs: 2, timeoutMs: 120_000 });
      const { total, byProducer } = scorePeer(p, r.outputs, pdfs, missed, kindOf);
      const line = (label: string, sc: SetScore) => scoreRow(p.name, label, sc);
      for (const [k, sc] of byProducer) rows.push(line(k, sc));
      rows.push(line('all', total));
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const head = [
    'converter',
    'producer',
    'display exact',
    'display norm.',
    'inline exact',
    'inline norm.',
    'table cell F1',
    'TEDS',
  ];
  console.log(textTable(head, rows));
  mkdirSync(out, { recursive: true });
  const report = [
    '# Formulas and tables on the typeset set (issue 11)',
    '',
    `${pdfs.length} PDFs in ${setDir}.`,
    '',
    markdownTable(head, rows),
    '',
    '## Formulas Folio missed (normalized)',
    '',
    '| document | kind | LaTeX |',
    '|---|---|---|',
    ...missed,
    '',
  ].join('\n');
  writeFileSync(join(out, 'report.md'), report);
  console.error(`eval:math: report in ${join(out, 'report.md')}`);
  return 0;
}

main().then(
  (c) => process.exit(c),
  (e) => {
    console.error(`eval:math: ${(e as Error).message}`);
    process.exit(1);
  },
);
