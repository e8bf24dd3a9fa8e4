/**
 * Issue 31 class 7, one style, one role: a page whose prose is set larger than the document's
 * body size (sampled over the first pages, where fontconfig's manual sets 8 pt property tables)
 * made every paragraph of two or three lines "larger than the body", and the one ending page 2
 * came out as `### After the pattern has been edited, …` beside paragraphs of the same font left
 * as text. The page's own prose size now decides: that paragraph is text, and the page's real
 * heading ("Font Matching", bold sans) stays a heading. Real page from Debian's fontconfig
 * documentation, cut alone; the checks are the real-world set's person-checked tests.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { failingSetTests } from './setTests';
import { fileMarkdown, headings } from './convertFile';
import { materializePages } from '../../eval/realworld/pages';
import { readTests, setDir, TESTS_FILE } from '../../eval/realworld/set';
import { corpusRoot } from '../../eval/corpus';
import { repoRoot } from '../../eval/repo';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

test('a paragraph in the page prose size is text, not a heading; the bold heading stays', async () => {
  const ids = ['fontconfig-user-p2-09', 'fontconfig-user-p2-05', 'fontconfig-user-p2-06'];
  const { failed, ran } = await failingSetTests(ids);
  assert.equal(ran.length, ids.length);
  assert.deepEqual(failed, []);
  const repo = repoRoot();
  const tests = readTests(join(setDir(repo), TESTS_FILE)).filter((t) => t.id === 'fontconfig-user-p2-05');
  const dir = mkdtempSync(join(tmpdir(), 'folio-prose-'));
  try {
    const file = [...materializePages(tests, dir, corpusRoot(repo), setDir(repo)).values()][0]!;
    assert.deepEqual(headings(await fileMarkdown(file)), ['## Font Matching']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
