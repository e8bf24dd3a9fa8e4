/**
 * `npm run bench -- --parts startup` (issue 22): a one-page PDF through `folio convert`, whole
 * process (Node start, the CLI, the page worker, pdf.js, writing the file, exit), next to pdf2md's
 * whole process on the same file (Node start, its pdf.js, its Markdown, writing it), in the same
 * run: the runs alternate (Folio first, then pdf2md first) after one warm-up each, and the medians
 * are compared. Target: Folio ≤ 1.5 × pdf2md.
 *
 * Measured on every Node at hand: the one running the bench, and the supported ones the tests use
 * (22.13, the floor, and 24, from the e2e cache, test/e2e/setup.sh), each against pdf2md on the same
 * Node — pdf2md starts 25 % faster on Node 24 than on Node 20, so one Node's figure says little
 * about another's. The target is met when it holds on each. Folio's runs carry
 * FOLIO_TRACE_STARTUP=1 (server/util/startupTrace.ts), so the table also says where its time goes:
 * the median moment of each mark, in ms from the process's spawn.
 * Fails when either converter fails on any Node.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fmt, textTable } from '../eval/report/textTable';
import { runProcess } from '../eval/run';
import { cliPath } from '../eval/peers/folio';
import { requireMeasured } from '../eval/report/nothingMeasured';
import { cachedNode } from '../test/helpers/cachedNode';

export const STARTUP_TARGET = 1.5;

/** The marks shown, in the order they happen (server/util/startupTrace.ts's names). */
const PHASES: [mark: string, label: string][] = [
  ['cli:main', 'CLI running'],
  ['worker:start', 'worker up'],
  ['pdfjs:loaded', 'pdf.js loaded'],
  ['worker:opened', 'PDF open'],
  ['worker:analyzed', 'page done'],
  ['cli:written', 'written'],
  ['cli:exit', 'exit'],
];

/** Folio's and pdf2md's whole-process times on one Node, and their medians. */
interface Comparison {
  folioMs: number[];
  pdf2mdMs: number[];
  folioMedianMs: number;
  pdf2mdMedianMs: number;
  /** Folio ÷ pdf2md, medians. */
  ratio: number;
  met: boolean;
}

export interface StartupRow extends Comparison {
  node: string;
  version: string;
  /** Median ms from spawn to each mark of Folio's runs (a mark some run lacked is left out). */
  phasesMs: Record<string, number>;
}

/** The first row's comparison (the Node running the bench), except `met`: met on every Node measured. */
export interface StartupFigures extends Comparison {
  pdf: string;
  runs: number;
  /** One per Node measured; the first is the Node running the bench. */
  rows: StartupRow[];
}

// pdf2md as a user runs it from a script: load it, convert one file, write the Markdown, exit.
const PDF2MD = `
const fs = require('fs');
const [pdf, out] = process.argv.slice(1);
require('@opendocsg/pdf2md')(new Uint8Array(fs.readFileSync(pdf))).then((md) => fs.writeFileSync(out, md), (e) => { console.error(String(e)); process.exit(1); });
`;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** The Node running the bench, then the supported ones of the e2e cache that are installed. */
export function startupNodes(): string[] {
  const cached = [cachedNode('node-floor'), cachedNode('node24')];
  return [process.execPath, ...cached.filter((p) => existsSync(p) && p !== process.execPath)];
}

/** `folio-trace <thread> <epoch ms> <name>` lines → first moment of each mark, ms after `spawnedAt`. */
function marksOf(stderr: string, spawnedAt: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of stderr.split('\n')) {
    const m = /^folio-trace \d+ ([\d.]+) (\S+)$/.exec(line.trim());
    if (m && !out.has(m[2]!)) out.set(m[2]!, Number(m[1]) - spawnedAt);
  }
  return out;
}

async function measureOn(node: string, repo: string, pdf: string, dir: string, runs: number): Promise<StartupRow> {
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const marks: Map<string, number>[] = [];
  const folio = async () => {
    const spawnedAt = performance.timeOrigin + performance.now();
    const r = await runProcess(node, [cliPath(repo), 'convert', pdf, '-o', join(dir, 'folio.md'), '--force', '-q'], {
      timeoutMs: 120_000,
      cwd: repo,
      env: { ...process.env, FOLIO_TRACE_STARTUP: '1' },
    });
    if (r.code !== 0)
      throw new Error(`folio convert ${pdf} on Node ${version} exited ${r.code ?? r.signal}: ${r.stderr.slice(-500)}`);
    marks.push(marksOf(r.stderr, spawnedAt));
    return r.ms;
  };
  const pdf2md = async () => {
    const r = await runProcess(node, ['-e', PDF2MD, pdf, join(dir, 'pdf2md.md')], { timeoutMs: 120_000, cwd: repo });
    if (r.code !== 0)
      throw new Error(`pdf2md ${pdf} on Node ${version} exited ${r.code ?? r.signal}: ${r.stderr.slice(-500)}`);
    return r.ms;
  };
  // Warm-up: the file and both programs in the disk cache, Folio's compile cache filled (Node ≥ 22).
  await folio();
  await pdf2md();
  marks.length = 0;
  const folioMs: number[] = [];
  const pdf2mdMs: number[] = [];
  for (let i = 0; i < runs; i++) {
    if (i % 2 === 0) {
      folioMs.push(await folio());
      pdf2mdMs.push(await pdf2md());
    } else {
      pdf2mdMs.push(await pdf2md());
      folioMs.push(await folio());
    }
  }
  requireMeasured(
    folioMs.length,
    `the start-up comparison on Node ${version}`,
    'Ask for at least one run (--startup-runs).',
  );
  const phasesMs: Record<string, number> = {};
  for (const [mark] of PHASES) {
    const at = marks.map((m) => m.get(mark)).filter((v): v is number => v !== undefined);
    if (at.length === marks.length) phasesMs[mark] = median(at);
  }
  const folioMedianMs = median(folioMs);
  const pdf2mdMedianMs = median(pdf2mdMs);
  const ratio = folioMedianMs / pdf2mdMedianMs;
  return {
    node,
    version,
    folioMs,
    pdf2mdMs,
    folioMedianMs,
    pdf2mdMedianMs,
    ratio,
    met: ratio <= STARTUP_TARGET,
    phasesMs,
  };
}

export async function benchStartup(
  repo: string,
  pdf: string,
  work: string,
  runs: number,
  nodes: string[] = startupNodes(),
): Promise<StartupFigures> {
  if (!existsSync(join(repo, 'node_modules/@opendocsg/pdf2md/package.json')))
    throw new Error('the startup part compares with pdf2md: npm package @opendocsg/pdf2md is not installed (npm ci)');
  const dir = join(work, 'startup');
  mkdirSync(dir, { recursive: true });
  const rows: StartupRow[] = [];
  for (const node of nodes) rows.push(await measureOn(node, repo, pdf, dir, runs));
  requireMeasured(rows.length, 'the start-up comparison', 'No Node to measure on.');
  const first = rows[0]!;
  const met = rows.every((r) => r.met);
  const row = (r: StartupRow, name: string, ms: number[], med: number) => [
    name,
    r.version,
    String(ms.length),
    fmt(med / 1000, 3),
    fmt(Math.min(...ms) / 1000, 3),
    fmt(Math.max(...ms) / 1000, 3),
    name === 'Folio' ? fmt(r.ratio, 2) : '1',
  ];
  console.log(
    `\n== start-up: one-page PDF, whole process (${pdf}) ==\n` +
      textTable(
        ['converter', 'node', 'runs', 'median s', 'min s', 'max s', '÷ pdf2md'],
        rows.flatMap((r) => [
          row(r, 'Folio', r.folioMs, r.folioMedianMs),
          row(r, 'pdf2md', r.pdf2mdMs, r.pdf2mdMedianMs),
        ]),
      ) +
      `\n\nFolio's marks, median ms from spawn (FOLIO_TRACE_STARTUP=1):\n` +
      textTable(
        ['node', ...PHASES.map(([, label]) => label), 'gone'],
        rows.map((r) => [
          r.version,
          ...PHASES.map(([mark]) => (r.phasesMs[mark] === undefined ? '-' : fmt(r.phasesMs[mark]!, 0))),
          fmt(r.folioMedianMs, 0),
        ]),
      ) +
      '\n' +
      rows
        .map(
          (r) =>
            `Node ${r.version}: Folio ÷ pdf2md = ${fmt(r.ratio, 2)} (target ≤ ${STARTUP_TARGET}): ${r.met ? 'met' : 'NOT met'}`,
        )
        .join('\n') +
      `\nFolio ÷ pdf2md = ${fmt(first.ratio, 2)} (target ≤ ${STARTUP_TARGET}): ${met ? 'met' : 'NOT met'}${
        rows.length < 2
          ? ''
          : met
            ? ' on every Node measured'
            : ` on Node ${rows
                .filter((r) => !r.met)
                .map((r) => r.version)
                .join(', ')}`
      }`,
  );
  return {
    pdf,
    runs,
    rows,
    folioMs: first.folioMs,
    pdf2mdMs: first.pdf2mdMs,
    folioMedianMs: first.folioMedianMs,
    pdf2mdMedianMs: first.pdf2mdMedianMs,
    ratio: first.ratio,
    met,
  };
}
