/**
 * Issue 31, class 3: sidebars and margin notes. Real pages of the real-world set, each cut alone
 * as the set does, checked with the set's own person-written tests:
 *   - pdf.js's bug1873345.pdf (LaTeX marginpars on both sides; the right one 9 pt from the text,
 *     closer than a stretched word space, joined the body line on its row);
 *   - bangorexam's documentation (macro names right-aligned in the left margin, one set flush
 *     against its description: "\examperiod{…}Specifies…");
 *   - sidenotesplus' test page (notes in a 55 mm margin, an alert mark drawn over the text);
 *   - uantwerpendocs' letter (sender and recipient addresses side by side on baseline grids half
 *     a line apart, read as one table before).
 * And the look-alikes that must keep their reading: Wikipedia's infobox (a narrow column of
 * label/value rows beside the body, read after it), two-column paper pages, a résumé's date
 * column, the label/value grid of test/pipeline/readingOrder.test.ts (run there).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTest, type PageTest } from '../../eval/realworld/checks';
import { materializePages } from '../../eval/realworld/pages';
import { readTests, setDir, TESTS_FILE } from '../../eval/realworld/set';
import { corpusRoot } from '../../eval/corpus';
import { repoRoot } from '../../eval/repo';
import { fileMarkdown } from './convertFile';

/** The set's tests whose ids are one of `prefixes` followed by a number, run on Folio's Markdown of their page alone. */
async function runSetTests(
  prefixes: string[],
): Promise<{ failed: string[]; ran: PageTest[]; md: Map<string, string> }> {
  const repo = repoRoot();
  // The page's own tests ("moran-p1-07"), not its scanned twins' ("…-p1-r200-01": OCR).
  const tests = readTests(join(setDir(repo), TESTS_FILE)).filter((t) =>
    prefixes.some((p) => t.id === p || (t.id.startsWith(p) && /^\d+$/.test(t.id.slice(p.length)))),
  );
  const dir = mkdtempSync(join(tmpdir(), 'folio-sidenotes-'));
  try {
    const files = materializePages(tests, dir, corpusRoot(repo), setDir(repo));
    const md = new Map<string, string>();
    const failed: string[] = [];
    for (const t of tests) {
      const key = `${t.pdf}#${t.page}`;
      if (!md.has(key)) md.set(key, await fileMarkdown(files.get(key)!));
      const r = runTest(t, md.get(key)!);
      if (!r.passed) failed.push(`${t.id}: ${r.why}`);
    }
    return { failed, ran: tests, md };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('margin notes on either side are blocks of their own, never interleaved with the paragraph beside them', async () => {
  const { failed, ran, md } = await runSetTests(['margin-notes-p1-']);
  assert.equal(ran.length, 7);
  assert.deepEqual(failed, []);
  const page = [...md.values()][0]!;
  // The note is read after the paragraph it sits beside, not between two of its lines.
  const para = page.indexOf('An implementation shall provide');
  const note = page.indexOf('Another note rather longer');
  assert.ok(para >= 0 && note > page.indexOf('conforms to the core specification.', para), page);
  assert.doesNotMatch(page, /imple- Another|imple-\s*\n/);
});

test("sidenotes in a wide margin, and an alert's mark drawn over the text, are read with their note", async () => {
  // sidenotesplus' test page: notes beside the paragraph that cites them, and \sidealert's
  // "— 1 —" drawn over the body line on the row of its margin note "- 1 - This paragraph …".
  const { failed, ran } = await runSetTests(['sidenotesplus-p1-']);
  assert.equal(ran.length, 7);
  assert.deepEqual(failed, []);
});

test('a label in the left margin, flush against its description, is read before it as a block of its own', async () => {
  const { failed, ran, md } = await runSetTests(['bangor-exam-p1-']);
  assert.ok(ran.length >= 5);
  assert.deepEqual(failed, []);
  const page = [...md.values()][0]!;
  // The description is whole, and the next label does not cut into it.
  assert.match(
    page,
    /Specifies the period of the exam, s1 for January\/End of Semester 1, s2 for May\/End of Semester 2/,
  );
  assert.ok(page.indexOf('\\timeallowed{⟨hours⟩}') > page.indexOf('(Summer Resits).'), page);
});

test("a letter's sender and recipient blocks side by side are two blocks in column order, not table rows", async () => {
  const { failed, ran } = await runSetTests(['ua-letter-p1-']);
  assert.ok(ran.length >= 8);
  // Not this class: the university's name is drawn as outlines (no text layer).
  assert.deepEqual(
    failed.filter((f) => !f.startsWith('ua-letter-p1-01')),
    [],
  );
});

test('a boxed title across newspaper columns keeps its short centred last line', async () => {
  // papertex's "doublebox": "… embed a related text / inside a piece of news." The last line
  // crosses no column gutter and was read with the columns under the box, a block of its own.
  const { failed, ran } = await runSetTests(['papertex-p3-03']);
  assert.equal(ran.length, 1);
  assert.deepEqual(failed, []);
});

test('look-alikes keep their reading: an infobox column, two-column papers, a CV with dates in its left column', async () => {
  // The infobox is a picture, a caption and label/value rows beside the article: read after it.
  // tucv's résumé sets each entry's dates in a left column level with the entry's first line.
  const { failed, ran } = await runSetTests([
    'wikipedia-pdfjs-p1-10',
    'moran-p1-',
    'els5p-p1-',
    'tracemonkey-p1-',
    'tucv-resume-p1-',
  ]);
  assert.equal(ran.length, 38);
  assert.deepEqual(failed, []);
});
