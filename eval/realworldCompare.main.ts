/**
 * `node out/scripts/eval/realworldCompare.main.js BEFORE/results.json AFTER/results.json`: two runs
 * of `npm run eval -- --sets realworld` compared test by test (eval/realworld/compare.ts). Exits 1
 * when a test was lost, so a script can gate on it.
 */
import { readFileSync } from 'node:fs';
import { compareRuns, type ResultRow } from './realworld/compare';

function rows(file: string): ResultRow[] {
  const json = JSON.parse(readFileSync(file, 'utf8')) as { results?: ResultRow[] };
  if (!Array.isArray(json.results)) throw new Error(`${file} has no "results" array: is it a realworld results.json?`);
  return json.results;
}

function main(): number {
  const [before, after] = process.argv.slice(2);
  if (!before || !after) {
    console.error('usage: realworldCompare.main.js BEFORE/results.json AFTER/results.json');
    return 2;
  }
  const c = compareRuns(rows(before), rows(after));
  const rate = (p: { passed: number; total: number }) => `${p.passed}/${p.total} (${(p.passed / p.total).toFixed(3)})`;
  console.log(`before ${rate(c.before)}  after ${rate(c.after)}  tests in both: ${c.common}`);
  console.log(`gained ${c.gained.length}: ${c.gained.join(' ')}`);
  console.log(`lost ${c.lost.length}:`);
  for (const l of c.lost) console.log(`  ${l.id}  ${l.why.slice(0, 150)}`);
  return c.lost.length ? 1 : 0;
}

try {
  process.exitCode = main();
} catch (e) {
  console.error((e as Error).message);
  process.exitCode = 1;
}
