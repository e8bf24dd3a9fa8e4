/**
 * `npm run eval`: quality of Folio against peer tools on every corpus PDF with Markdown ground
 * truth, all converters run here in the same run (issue 4).
 *
 *   node out/scripts/eval/eval.main.js [--sets a,b] [--peers Folio,pdftotext,…] [--jobs 2]
 *                                      [--timeout-s 120] [--out eval/out] [--limit N] [--quick]
 *                                      [--only id-or-pdf-substring,…]  (realworld and tables only)
 *
 * `math` (in the default sets) is the typeset formulas-and-tables set of issue 11: it runs
 * `eval/gen/math/mathset.main.ts` (formula match and table cell F1/TEDS, every peer beside
 * Folio) after the text sets, into `<out>/mathset/`; its exit code counts.
 * `office` (in the default sets) is issue 41's set of Docling's own DOCX/PPTX/XLSX/HTML/CSV/Markdown test
 * documents against its ground truth: eval/office/run.ts, into `<out>/office/`.
 * `realworld` (in the default sets) is issues 23/40's person-checked set of olmOCR-bench-style
 * tests on real pages: eval/realworld/run.ts, into `<out>/realworld/`; its sealed part
 * (eval/realworld/sealed.ts) is reported beside the working part by its rates only.
 * `tables` (in the default sets) is issue 31's table-only set: pages with ground-truth tables
 * (eval/tables/), cell F1 and PubTabNet's TEDS per page, source and producer, into `<out>/tables/`.
 * The sets include the generated multi-column set (`multicol`, `multicol-scan`: issue 15;
 * `multicol-scan-150`, `-300`; the harder twins `multicol-scan-hard`: issue 31),
 * built on demand into a cache and reported per producer; `--quick` builds and scores only
 * two of its documents.
 *
 * Prints a table per set and overall, writes <out>/results.json, <out>/report.md and
 * <out>/chart.svg. Exits non-zero only on harness errors (a converter that fails on a file
 * scores zero there; quality targets are reported, not enforced).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { corpusRoot, inSets, QUALITY_SETS, readManifest } from './corpus';
import { MULTICOL_SETS, multicolEntries, multicolTargets } from './multicolSet';
import { aggregate, folioBehind, runPeer, type Aggregate, type PeerRun } from './evaluate';
import { METRICS } from './metrics/score';
import { folioPeer } from './peers/folio';
import { pdf2mdPeer } from './peers/pdf2md';
import { pdftotextPeer } from './peers/pdftotext';
import { pymupdfPeer } from './peers/pymupdf';
import type { Peer } from './peers/types';
import { barChartSvg } from './report/svgChart';
import { fmt, markdownTable, textTable } from './report/textTable';
import { repoRoot } from './repo';
import { requireMeasured } from './report/nothingMeasured';
import { REALWORLD_SET, runRealworld } from './realworld/run';
import { runTableSet, TABLES_SET } from './tables/run';
import { OFFICE_SET, runOfficeSet } from './office/run';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function rowsFor(aggs: Aggregate[], set: string): string[][] {
  return aggs
    .filter((a) => a.set === set)
    .map((a) => [
      a.peer,
      String(a.files - a.failed) + '/' + a.files,
      fmt(a.nedMedian),
      ...METRICS.map(
        (m) => fmt(a.metrics[m.key]?.mean) + (m.key !== 'ned' && a.metrics[m.key] ? ` (${a.metrics[m.key]!.n})` : ''),
      ),
    ]);
}

const HEAD = ['converter', 'ok', 'NED median', ...METRICS.map((m) => (m.key === 'ned' ? 'NED mean' : m.label))];

async function main(): Promise<number> {
  const repo = repoRoot();
  const asked = (
    arg('sets')?.split(',') ?? [...QUALITY_SETS, ...MULTICOL_SETS, MATH_SET, TABLES_SET, REALWORLD_SET, OFFICE_SET]
  ).map((s) => s.trim());
  const outDirEarly = resolve(arg('out') ?? join(repo, 'eval', 'out'));
  const withMath = asked.includes(MATH_SET);
  // `realworld` (issue 23, eval/realworld/) runs on its own one-page PDFs, after any other set.
  const withRealworld = asked.includes(REALWORLD_SET);
  const withTables = asked.includes(TABLES_SET);
  // `office` (issue 41, eval/office/): Docling's DOCX/PPTX/XLSX/HTML/CSV/Markdown test documents.
  const withOffice = asked.includes(OFFICE_SET);
  const sets = asked.filter((s) => s !== MATH_SET && s !== REALWORLD_SET && s !== TABLES_SET && s !== OFFICE_SET);
  const pageSetOptions = () => ({
    outDir: outDirEarly,
    peers: arg('peers')
      ?.split(',')
      .map((s) => s.trim()),
    jobs: Number(arg('jobs') ?? 2),
    timeoutMs: Number(arg('timeout-s') ?? 300) * 1000,
    only: arg('only')?.split(','),
  });
  // The page sets (`tables`, `realworld`) run after the text sets and `math`; every exit code counts.
  const pageSets = async (code: number) => {
    if (withTables) code = Math.max(code, await runTableSet(repo, pageSetOptions()));
    if (withRealworld) code = Math.max(code, await runRealworld(repo, pageSetOptions()));
    if (withOffice)
      code = Math.max(
        code,
        await runOfficeSet(repo, {
          outDir: outDirEarly,
          quick: process.argv.includes('--quick'),
          timeoutMs: Number(arg('timeout-s') ?? 120) * 1000,
          only: arg('only')?.split(','),
        }),
      );
    return code;
  };
  if (sets.length === 0) return pageSets(withMath ? runMathSet(repo, outDirEarly) : 0);
  // Only the corpus sets need the shared corpus: `office`, `math`, `tables`… run without it.
  const root = corpusRoot(repo);
  const jobs = Number(arg('jobs') ?? 2);
  const timeoutMs = Number(arg('timeout-s') ?? 120) * 1000;
  const outDir = resolve(arg('out') ?? join(repo, 'eval', 'out'));
  let entries = [
    ...inSets(readManifest(root), sets).filter((e) => e.gt),
    ...(await multicolEntries(sets, process.argv.includes('--quick'))),
  ];
  const limit = arg('limit');
  if (limit) entries = entries.slice(0, Number(limit));
  requireMeasured(
    entries.length,
    `the set ${sets.join(', ')}`,
    `No PDF with ground truth in these sets under ${root}.`,
  );

  const all: Peer[] = [folioPeer(repo), pdftotextPeer(false), pdftotextPeer(true), pdf2mdPeer(repo), pymupdfPeer()];
  const wanted = arg('peers')
    ?.split(',')
    .map((s) => s.trim());
  const peers = all.filter((p) => !wanted || wanted.includes(p.name));
  requireMeasured(
    peers.length,
    `the converter list (--peers ${wanted?.join(',')})`,
    `Known converters: ${all.map((p) => p.name).join(', ')}.`,
  );
  const skipped: string[] = [];
  const runs: PeerRun[] = [];
  const work = mkdtempSync(join(tmpdir(), 'folio-eval-'));
  try {
    for (const p of peers) {
      const why = p.unavailable();
      if (why) {
        // Folio missing is a harness error (nothing to evaluate); a peer missing is reported.
        if (p.name === 'Folio') throw new Error(why);
        skipped.push(`${p.name}: ${why}`);
        console.error(`eval: skipping ${p.name}: ${why}`);
        continue;
      }
      console.error(`eval: ${p.name} on ${entries.length} files…`);
      const r = await runPeer(p, entries, work, { jobs, timeoutMs });
      console.error(
        `eval: ${p.name} done in ${(r.wallMs / 1000).toFixed(1)} s, ${r.files.filter((f) => f.error).length} failed`,
      );
      runs.push(r);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }

  requireMeasured(runs.length, 'every table', `No converter ran (skipped: ${skipped.join('; ')}).`);
  const usedSets = sets.filter((s) => entries.some((e) => e.set === s || e.rel.startsWith(s + '/')));
  // Entries carry their manifest set (docling/pdf …); the requested sets map onto them.
  const setNames = [...new Set(entries.map((e) => e.set))];
  const aggs = aggregate(runs, setNames);
  const md: string[] = [
    '# Folio quality evaluation',
    '',
    `Corpus: \`${root}\`; ${entries.length} PDFs with ground truth; sets: ${usedSets.join(', ')}.`,
    '',
  ];
  md.push(
    'Metrics: NED = normalized edit distance of the normalized text (lower is better); all others 0–1, higher is better, mean over files where the ground truth has the element (count in parentheses).',
    '',
  );
  for (const set of [...setNames, 'overall']) {
    const rows = rowsFor(aggs, set);
    console.log(`\n== ${set} ==\n${textTable(HEAD, rows)}`);
    md.push(`## ${set}`, '', markdownTable(HEAD, rows), '');
  }
  const behind = folioBehind(aggs.filter((a) => a.set === 'docling-src-rendered' || a.set === 'selfmade-example'));
  const hasFolio = runs.some((r) => r.peer === 'Folio');
  const target = !hasFolio
    ? 'not evaluated (Folio was not run).'
    : behind.length === 0
      ? 'met: Folio is ahead of every peer on every metric on docling-src-rendered and selfmade-example.'
      : `not met; Folio is behind on:\n${behind.map((b) => `- ${b}`).join('\n')}`;
  console.log(`\nTarget (issue 4): ${target}`);
  md.push(
    '## Target',
    '',
    `Folio ahead of every peer on every metric on docling-src-rendered and selfmade-example: ${target}`,
    '',
  );
  const mc = multicolTargets(aggs);
  if (mc.length) {
    console.log(`\nTargets (issue 15, multi-column set, per producer):\n${mc.map((l) => `- ${l}`).join('\n')}`);
    md.push('## Multi-column targets (issue 15)', '', ...mc.map((l) => `- ${l}`), '');
  }
  if (skipped.length) md.push('## Skipped converters', '', ...skipped.map((s) => `- ${s}`), '');

  const overall = aggs.filter((a) => a.set === 'overall');
  const chartMetrics = METRICS.filter((m) => overall.some((a) => a.metrics[m.key]));
  const svg = barChartSvg(
    'Overall quality (higher is better; NED shown as 1 − NED)',
    chartMetrics.map((m) => (m.lowerIsBetter ? `1−${m.label}` : m.label)),
    overall.map((a) => ({
      name: a.peer,
      values: chartMetrics.map((m) =>
        a.metrics[m.key] ? (m.lowerIsBetter ? 1 - a.metrics[m.key]!.mean : a.metrics[m.key]!.mean) : undefined,
      ),
    })),
  );
  md.splice(4, 0, '![overall quality](chart.svg)', '');
  md.push(
    '## Per file',
    '',
    markdownTable(
      ['file', 'converter', 'NED', 'heading F1', 'list F1', 'TEDS', 'order', 'error'],
      runs.flatMap((r) =>
        r.files.map((f) => [
          f.rel,
          f.peer,
          fmt(f.scores.ned),
          fmt(f.scores.headingF1),
          fmt(f.scores.listF1),
          fmt(f.scores.teds),
          fmt(f.scores.readingOrder),
          f.error ?? '',
        ]),
      ),
    ),
    '',
  );

  mkdirSync(outDir, { recursive: true });
  writeFileSync(
    join(outDir, 'results.json'),
    JSON.stringify({ corpus: root, date: new Date().toISOString(), skipped, aggregates: aggs, runs }, null, 1) + '\n',
  );
  writeFileSync(join(outDir, 'report.md'), md.join('\n'));
  writeFileSync(join(outDir, 'chart.svg'), svg);
  console.log(`\neval: wrote ${join(outDir, 'results.json')}, report.md, chart.svg`);
  return pageSets(withMath ? runMathSet(repo, outDir) : 0);
}

const MATH_SET = 'math';

/** The formulas-and-tables set, in its own process (it typesets its PDFs on first use). */
function runMathSet(repo: string, outDir: string): number {
  const script = join(repo, 'out', 'scripts', 'eval', 'gen', 'math', 'mathset.main.js');
  if (!existsSync(script)) throw new Error(`${script} is missing: build first (node esbuild.mjs)`);
  const peers = arg('peers');
  console.log('\n# math and tables (eval/gen/math)');
  const r = spawnSync(
    process.execPath,
    [script, ...(peers ? ['--peers', peers] : []), '--out', join(outDir, 'mathset')],
    { stdio: 'inherit' },
  );
  return r.status ?? 2;
}

main().then(
  (code) => (process.exitCode = code),
  (e) => {
    console.error(`eval: ${e instanceof Error ? e.message : String(e)}`);
    process.exitCode = 2;
  },
);
