/**
 * `npm run sweep`: the CLI over every PDF of the robustness sets (issue 4), each file in its own
 * process with a time limit (the process group is killed on timeout), N at once; classified
 * converted / partial / clear error / unclear error / crash / timeout.
 *
 *   node out/scripts/eval/sweep.main.js [--sample N] [--seed 42] [--parallel 2] [--timeout-s 60] [--per-page-s 2]
 *                                       [--sets a,b] [--list files.txt] [--out eval/out]
 *   --list: only the files named in a text file (corpus-relative paths, one per line), e.g. to
 *   re-run the failures of an earlier sweep: `awk -F'\t' '$3!="converted"{print $1}' sweep.tsv`.
 *
 * Writes <out>/sweep.tsv and <out>/sweep-summary.md. Exit code 0 unless the harness itself
 * failed (use the CI test test/corpus/sweep.test.ts for assertions), or 1 with --strict when a
 * crash or timeout occurred.
 */
import { existsSync, readFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { corpusRoot, SWEEP_SETS } from './corpus';
import { cliPath } from './peers/folio';
import { repoRoot } from './repo';
import { requireMeasured } from './report/nothingMeasured';
import { countOutcomes, sweepSummary, sweepTsv } from './sweep/report';
import { listSweepFiles, runSweep } from './sweep/runSweep';
import { seededSample } from './sweep/sample';
import { snapshotDist } from './sweep/snapshot';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<number> {
  const repo = repoRoot();
  if (!existsSync(cliPath(repo))) throw new Error(`${cliPath(repo)} is missing: run "node esbuild.mjs" first`);
  const root = corpusRoot(repo);
  const sets = arg('sets')?.split(',') ?? [...SWEEP_SETS];
  let files = listSweepFiles(root, sets);
  const list = arg('list');
  if (list) {
    const wanted = new Set(
      readFileSync(list, 'utf8')
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean),
    );
    files = files.filter((f) => wanted.has(f.rel));
  }
  const sample = arg('sample');
  if (sample) files = seededSample(files, Number(sample), Number(arg('seed') ?? 42), (f) => f.rel);
  requireMeasured(
    files.length,
    `the sweep set (${sets.join(', ')}${list ? `, --list ${list}` : ''}${sample ? `, --sample ${sample}` : ''})`,
    `No PDF found under ${root} for these sets.`,
  );
  const parallel = Number(arg('parallel') ?? 2);
  const timeoutMs = Number(arg('timeout-s') ?? 60) * 1000;
  const perPageMs = Number(arg('per-page-s') ?? 2) * 1000;
  const outDir = resolve(arg('out') ?? join(repo, 'eval', 'out'));
  const work = mkdtempSync(join(tmpdir(), 'folio-sweep-'));
  const snap = snapshotDist(repo);
  console.error(
    `sweep: ${files.length} files, ${parallel} at once, ${timeoutMs / 1000} s + ${perPageMs / 1000} s/page limit each`,
  );
  const t0 = Date.now();
  let results;
  try {
    results = await runSweep(files, {
      repo,
      cli: snap.cli,
      parallel,
      timeoutMs,
      perPageMs,
      workDir: work,
      onResult: (r, done, total) => {
        if (r.outcome !== 'converted' || done % 50 === 0)
          console.error(
            `[${done}/${total}] ${r.outcome.padEnd(13)} ${r.rel} ${(r.ms / 1000).toFixed(1)} s ${r.reason}`,
          );
      },
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
    snap.dispose();
  }
  const name = sample ? `sweep-sample${sample}` : list ? 'sweep-list' : 'sweep';
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, `${name}.tsv`), sweepTsv(results));
  const summary = sweepSummary(
    results,
    `Folio robustness sweep (${files.length} files, ${((Date.now() - t0) / 1000).toFixed(0)} s)`,
  );
  writeFileSync(join(outDir, `${name}-summary.md`), summary);
  console.log(summary);
  console.log(`sweep: wrote ${join(outDir, name + '.tsv')} and ${name}-summary.md`);
  const c = countOutcomes(results);
  return process.argv.includes('--strict') && c.crash + c.timeout > 0 ? 1 : 0;
}

main().then(
  (code) => (process.exitCode = code),
  (e) => {
    console.error(`sweep: ${e instanceof Error ? e.message : String(e)}`);
    process.exitCode = 2;
  },
);
