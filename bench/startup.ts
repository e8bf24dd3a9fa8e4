/**
 * `npm run bench -- --parts startup` (issue 22): a one-page PDF through `folio convert`, whole
 * process (Node start, the CLI bundle, the page worker, pdf.js, writing the file, exit), next to
 * pdf2md's whole process on the same file (Node start, its pdf.js, its Markdown, writing it), in
 * the same run: the runs alternate (Folio first, then pdf2md first) after one warm-up each, and
 * the medians are compared. Target: Folio ≤ 1.5 × pdf2md. Fails when either converter fails.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fmt, textTable } from '../eval/report/textTable';
import { runProcess } from '../eval/run';
import { cliPath } from '../eval/peers/folio';
import { requireMeasured } from '../eval/report/nothingMeasured';

export const STARTUP_TARGET = 1.5;

export interface StartupFigures {
  pdf: string;
  runs: number;
  folioMs: number[];
  pdf2mdMs: number[];
  folioMedianMs: number;
  pdf2mdMedianMs: number;
  /** Folio ÷ pdf2md, medians. */
  ratio: number;
  met: boolean;
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

export async function benchStartup(repo: string, pdf: string, work: string, runs: number): Promise<StartupFigures> {
  if (!existsSync(join(repo, 'node_modules/@opendocsg/pdf2md/package.json')))
    throw new Error('the startup part compares with pdf2md: npm package @opendocsg/pdf2md is not installed (npm ci)');
  const dir = join(work, 'startup');
  mkdirSync(dir, { recursive: true });
  const folio = async () => {
    const r = await runProcess(
      process.execPath,
      [cliPath(repo), 'convert', pdf, '-o', join(dir, 'folio.md'), '--force', '-q'],
      { timeoutMs: 120_000, cwd: repo },
    );
    if (r.code !== 0) throw new Error(`folio convert ${pdf} exited ${r.code ?? r.signal}: ${r.stderr.slice(-500)}`);
    return r.ms;
  };
  const pdf2md = async () => {
    const r = await runProcess(process.execPath, ['-e', PDF2MD, pdf, join(dir, 'pdf2md.md')], {
      timeoutMs: 120_000,
      cwd: repo,
    });
    if (r.code !== 0) throw new Error(`pdf2md ${pdf} exited ${r.code ?? r.signal}: ${r.stderr.slice(-500)}`);
    return r.ms;
  };
  // Warm-up: the file and both programs in the disk cache, the page cache's folders made.
  await folio();
  await pdf2md();
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
  requireMeasured(folioMs.length, 'the start-up comparison', 'Ask for at least one run (--startup-runs).');
  const folioMedianMs = median(folioMs);
  const pdf2mdMedianMs = median(pdf2mdMs);
  const ratio = folioMedianMs / pdf2mdMedianMs;
  const met = ratio <= STARTUP_TARGET;
  const row = (name: string, ms: number[], med: number) => [
    name,
    String(ms.length),
    fmt(med / 1000, 3),
    fmt(Math.min(...ms) / 1000, 3),
    fmt(Math.max(...ms) / 1000, 3),
    name === 'Folio' ? fmt(ratio, 2) : '1',
  ];
  console.log(
    `\n== start-up: one-page PDF, whole process (${pdf}) ==\n` +
      textTable(
        ['converter', 'runs', 'median s', 'min s', 'max s', '÷ pdf2md'],
        [row('Folio', folioMs, folioMedianMs), row('pdf2md', pdf2mdMs, pdf2mdMedianMs)],
      ) +
      `\nFolio ÷ pdf2md = ${fmt(ratio, 2)} (target ≤ ${STARTUP_TARGET}): ${met ? 'met' : 'NOT met'}`,
  );
  return { pdf, runs, folioMs, pdf2mdMs, folioMedianMs, pdf2mdMedianMs, ratio, met };
}
