/** Reads the real-world set (eval/realworld/tests.jsonl): one olmOCR-bench test per line. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseTest, TestFormatError, type PageTest } from './checks';

export const TESTS_FILE = 'tests.jsonl';

export function setDir(repo: string): string {
  return join(repo, 'eval', 'realworld');
}

/** Every test, validated; duplicate ids and bad lines are errors naming the line. */
export function readTests(file: string): PageTest[] {
  const tests: PageTest[] = [];
  const ids = new Set<string>();
  for (const [i, line] of readFileSync(file, 'utf8').split('\n').entries()) {
    if (!line.trim()) continue;
    let o: unknown;
    try {
      o = JSON.parse(line);
    } catch (e) {
      throw new TestFormatError(`${file}:${i + 1}: not JSON (${(e as Error).message})`);
    }
    let t: PageTest;
    try {
      t = parseTest(o);
    } catch (e) {
      throw new TestFormatError(`${file}:${i + 1}: ${(e as Error).message}`);
    }
    if (ids.has(t.id)) throw new TestFormatError(`${file}:${i + 1}: duplicate id ${t.id}`);
    ids.add(t.id);
    tests.push(t);
  }
  return tests;
}
