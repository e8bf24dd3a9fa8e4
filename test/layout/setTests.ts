/**
 * Test helper: the real-world set's person-checked tests with the given ids, each run on Folio's
 * Markdown of its page cut alone (as `npm run eval -- --sets realworld` does); the failures.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTest, type PageTest } from '../../eval/realworld/checks';
import { materializePages } from '../../eval/realworld/pages';
import { assertWorkingTests, pageKey } from '../../eval/realworld/sealed';
import { readTests, setDir, TESTS_FILE } from '../../eval/realworld/set';
import { corpusRoot } from '../../eval/corpus';
import { repoRoot } from '../../eval/repo';
import { fileMarkdown } from './convertFile';
import { SEALED_IDS_USED_BEFORE_THE_SEAL } from './sealedLegacy';

/**
 * `markdownOf` converts a page file (default: as the CLI does, `fileMarkdown`); a test that needs
 * other options or looks at the analysis on the way passes its own.
 */
export async function failingSetTests(
  ids: string[],
  markdownOf: (file: string, test: PageTest) => Promise<string> = (file) => fileMarkdown(file),
): Promise<{ failed: string[]; ran: PageTest[] }> {
  const repo = repoRoot();
  const tests = readTests(join(setDir(repo), TESTS_FILE)).filter((t) => ids.includes(t.id));
  // Rule tests read working pages only (eval/realworld/sealed.ts).
  assertWorkingTests(tests.filter((t) => !SEALED_IDS_USED_BEFORE_THE_SEAL.has(t.id)));
  const dir = mkdtempSync(join(tmpdir(), 'folio-settests-'));
  try {
    const files = materializePages(tests, dir, corpusRoot(repo), setDir(repo));
    const failed: string[] = [];
    const md = new Map<string, string>();
    for (const t of tests) {
      const key = pageKey(t.pdf, t.page);
      if (!md.has(key)) md.set(key, await markdownOf(files.get(key)!, t));
      const r = runTest(t, md.get(key)!);
      if (!r.passed) failed.push(`${t.id}: ${r.why}`);
    }
    return { failed, ran: tests };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
