/**
 * `npm run fuzz`: the mutation fuzzer against the real backend process (issue 4).
 *
 *   node out/scripts/eval/fuzz.main.js [--cases 200] [--seed 1000] [--timeout-s 90] [--out eval/out]
 *
 * Writes <out>/fuzz.tsv and <out>/fuzz-summary.md. Exit 0 unless the harness failed, or 1 with
 * --strict when any case crashed or hung the backend.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { corpusRoot } from './corpus';
import { fuzzSummary, fuzzTsv } from './fuzz/report';
import { fuzzCases, runFuzz } from './fuzz/runFuzz';
import { CORPUS_SOURCES, GENERATED, sourceReader } from './fuzz/sources';
import { repoRoot } from './repo';
import { requireMeasured } from './report/nothingMeasured';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<number> {
  const repo = repoRoot();
  if (!existsSync(join(repo, 'dist', 'server.js')))
    throw new Error(`${join(repo, 'dist', 'server.js')} is missing: run "node esbuild.mjs" first`);
  const corpus = corpusRoot(repo);
  const count = Number(arg('cases') ?? 200);
  const cases = fuzzCases([GENERATED, ...CORPUS_SOURCES], count, Number(arg('seed') ?? 1000));
  requireMeasured(cases.length, `the fuzz case list (--cases ${arg('cases') ?? 200})`, 'Ask for at least one case.');
  const absent = CORPUS_SOURCES.filter((s) => cases.some((c) => c.source === s) && !existsSync(join(corpus, s)));
  if (absent.length > 0) throw new Error(`fuzz seed PDFs missing from the corpus ${corpus}: ${absent.join(', ')}`);
  const work = mkdtempSync(join(tmpdir(), 'folio-fuzz-'));
  const t0 = Date.now();
  let out;
  try {
    out = await runFuzz(cases, {
      workDir: work,
      sourceBytes: sourceReader(corpus),
      timeoutMs: Number(arg('timeout-s') ?? 90) * 1000,
      onResult: (r) => {
        if (r.outcome === 'crash' || r.outcome === 'hang' || r.outcome === 'unclear-error' || r.index % 25 === 0)
          console.error(
            `[${r.index + 1}/${count}] ${r.outcome.padEnd(13)} ${r.source} ${r.kind} seed ${r.seed} ${r.detail.split('\n')[0]}`,
          );
      },
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const outDir = resolve(arg('out') ?? join(repo, 'eval', 'out'));
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'fuzz.tsv'), fuzzTsv(out.results));
  const summary = fuzzSummary(
    out.results,
    out.restarts,
    `Folio mutation fuzzer (${count} cases, ${((Date.now() - t0) / 1000).toFixed(0)} s)`,
  );
  writeFileSync(join(outDir, 'fuzz-summary.md'), summary);
  console.log(summary);
  const bad = out.results.filter((r) => r.outcome === 'crash' || r.outcome === 'hang').length;
  return process.argv.includes('--strict') && bad > 0 ? 1 : 0;
}

main().then(
  (code) => (process.exitCode = code),
  (e) => {
    console.error(`fuzz: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    process.exitCode = 2;
  },
);
