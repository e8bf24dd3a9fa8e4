/**
 * Test helper: Folio's Markdown of the real-world set's page that a person-checked test reads, the
 * page cut alone as `npm run eval -- --sets realworld` cuts it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { materializePages } from '../../eval/realworld/pages';
import { readTests, setDir, TESTS_FILE } from '../../eval/realworld/set';
import { corpusRoot } from '../../eval/corpus';
import { repoRoot } from '../../eval/repo';
import { fileMarkdown } from './convertFile';

export async function pageMarkdownOf(testId: string): Promise<string> {
  const repo = repoRoot();
  const tests = readTests(join(setDir(repo), TESTS_FILE)).filter((t) => t.id === testId);
  if (tests.length !== 1) throw new Error(`no real-world test ${testId} in ${TESTS_FILE}`);
  const dir = mkdtempSync(join(tmpdir(), 'folio-page-of-'));
  try {
    const file = [...materializePages(tests, dir, corpusRoot(repo), setDir(repo)).values()][0]!;
    return await fileMarkdown(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
