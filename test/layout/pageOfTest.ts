/**
 * Test helper: Folio's Markdown of the real-world set's page that a person-checked test reads, the
 * page cut alone as `npm run eval -- --sets realworld` cuts it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { materializePages } from '../../eval/realworld/pages';
import { readTests, setDir, TESTS_FILE } from '../../eval/realworld/set';
import { assertWorkingTests, pageKey } from '../../eval/realworld/sealed';
import { corpusRoot } from '../../eval/corpus';
import { repoRoot } from '../../eval/repo';
import { fileMarkdown } from './convertFile';
import { SEALED_IDS_USED_BEFORE_THE_SEAL, SEALED_PAGES_USED_BEFORE_THE_SEAL } from './sealedLegacy';

export async function pageMarkdownOf(testId: string): Promise<string> {
  const tests = readTests(join(setDir(repoRoot()), TESTS_FILE)).filter((t) => t.id === testId);
  if (tests.length !== 1) throw new Error(`no real-world test ${testId} in ${TESTS_FILE}`);
  if (!SEALED_IDS_USED_BEFORE_THE_SEAL.has(testId)) assertWorkingTests(tests);
  return cutAlone(tests[0]!.pdf, tests[0]!.page, fileMarkdown);
}

/**
 * Cuts page `page` of a real-world source (`debian/…`, `corpus/…`, `raster150/…`) alone into a
 * temporary PDF, as the eval does, and runs `use` on it; the file is removed afterwards.
 */
export async function withPageFile<T>(pdf: string, page: number, use: (file: string) => Promise<T>): Promise<T> {
  // Rule tests read working pages only (eval/realworld/sealed.ts).
  if (!SEALED_PAGES_USED_BEFORE_THE_SEAL.has(pageKey(pdf, page))) assertWorkingTests([{ pdf, page }]);
  return cutAlone(pdf, page, use);
}

async function cutAlone<T>(pdf: string, page: number, use: (file: string) => Promise<T>): Promise<T> {
  const repo = repoRoot();
  const dir = mkdtempSync(join(tmpdir(), 'folio-page-of-'));
  try {
    const file = materializePages([{ pdf, page }], dir, corpusRoot(repo), setDir(repo)).get(pageKey(pdf, page));
    if (!file) throw new Error(`page ${page} of ${pdf} could not be cut`);
    return await use(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
