/**
 * `node out/scripts/eval/realworldCompare.main.js BEFORE/results.json AFTER/results.json`: two runs
 * of `npm run eval -- --sets realworld` compared test by test on the working part
 * (eval/realworld/compare.ts), and by aggregates on the sealed part (its tests are never stored).
 * Exits 1 when a working test was lost, so a script can gate on it.
 */
import { readFileSync } from 'node:fs';
import { compareRuns, compareSealed, type PartAggregates, type ResultRow } from './realworld/compare';

interface Results {
  results?: ResultRow[];
  sealed?: PartAggregates;
}

function read(file: string): Results & { results: ResultRow[] } {
  const json = JSON.parse(readFileSync(file, 'utf8')) as Results;
  if (!Array.isArray(json.results)) throw new Error(`${file} has no "results" array: is it a realworld results.json?`);
  return json as Results & { results: ResultRow[] };
}

function main(): number {
  const [before, after] = process.argv.slice(2);
  if (!before || !after) {
    console.error('usage: realworldCompare.main.js BEFORE/results.json AFTER/results.json');
    return 2;
  }
  const a = read(before);
  const b = read(after);
  const c = compareRuns(a.results, b.results);
  const rate = (p: { passed: number; total: number } | undefined) =>
    p ? `${p.passed}/${p.total} (${(p.passed / p.total).toFixed(3)})` : '–';
  console.log(`working part: before ${rate(c.before)}  after ${rate(c.after)}  tests in both: ${c.common}`);
  console.log(`gained ${c.gained.length}: ${c.gained.join(' ')}`);
  console.log(`lost ${c.lost.length}:`);
  for (const l of c.lost) console.log(`  ${l.id}  ${l.why.slice(0, 150)}`);
  const s = compareSealed(a.sealed, b.sealed);
  if (!s) console.log('sealed part: not in both runs (a run from before the seal has no sealed aggregates)');
  else {
    const same = a.sealed!.tests === b.sealed!.tests;
    console.log(
      `sealed part (aggregates only): ${a.sealed!.tests} → ${b.sealed!.tests} tests${same ? '' : ' — the set changed, rates are not test for test'}`,
    );
    for (const r of s) console.log(`  ${r.key.padEnd(28)} ${rate(r.before).padStart(18)} → ${rate(r.after)}`);
  }
  return c.lost.length ? 1 : 0;
}

try {
  process.exitCode = main();
} catch (e) {
  console.error((e as Error).message);
  process.exitCode = 1;
}
