/**
 * Test helper: the real-world set's person-checked tests with the given ids, each run on Folio's
 * Markdown of its page cut alone (as `npm run eval -- --sets realworld` does); the failures.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTest, type PageTest } from '../../eval/realworld/checks';
import { materializePages } from '../../eval/realworld/pages';
import { readTests, setDir, TESTS_FILE } from '../../eval/realworld/set';
import { corpusRoot } from '../../eval/corpus';
import { repoRoot } from '../../eval/repo';
import { fileMarkdown } from './convertFile';

export async function failingSetTests(ids: string[]): Promise<{ failed: string[]; ran: PageTest[] }> {
  const repo = repoRoot();
  const tests = readTests(join(setDir(repo), TESTS_FILE)).filter((t) => ids.includes(t.id));
  const dir = mkdtempSync(join(tmpdir(), 'folio-settests-'));
  try {
    const files = materializePages(tests, dir, corpusRoot(repo), setDir(repo));
    const failed: string[] = [];
    const md = new Map<string, string>();
    for (const t of tests) {
      const key = `${t.pdf}#${t.page}`;
      if (!md.has(key)) md.set(key, await fileMarkdown(files.get(key)!));
      const r = runTest(t, md.get(key)!);
      if (!r.passed) failed.push(`${t.id}: ${r.why}`);
    }
    return { failed, ran: tests };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
