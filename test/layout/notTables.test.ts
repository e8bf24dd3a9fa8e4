/**
 * Issue 31 class 4, things that are not tables made into tables, on Folio's Markdown of real
 * pages cut alone, with the set's person-checked tests (eval/realworld/tests.jsonl):
 * - a course prospectus printed by Chromium (eval/realworld/made/brochure.pdf): three stat
 *   blocks (a big number over a description wrapped in its own column) came out as a pipe table
 *   whose rows were visual lines, and the two-column numbered module list as a table read across
 *   (04 after 05); the unruled fee table on the same page stays a table;
 * - papertex's newspaper sample: four narrow columns of news were a table of visual lines; as
 *   text, their spans must not hide the page's gutters of the three columns above them (the
 *   black-square end of the story there, papertex-p2-05, read interleaved).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { failingSetTests } from './setTests';

test('stat blocks read block by block; a two-column numbered list reads down each column; the fee table stays', async () => {
  const ids = [
    'brochure-p1-01',
    'brochure-p1-02',
    'brochure-p1-03',
    'brochure-p1-04',
    'brochure-p1-05',
    'brochure-p1-06',
    'brochure-p1-07',
    'brochure-p1-08',
    'brochure-p1-09',
  ];
  const { failed, ran } = await failingSetTests(ids);
  assert.equal(ran.length, ids.length);
  assert.deepEqual(failed, []);
});

test('newspaper columns are text, not a table of visual lines (papertex)', async () => {
  const ids = ['papertex-p2-05', 'papertex-p2-08', 'papertex-p2-09', 'papertex-p3-05', 'papertex-p3-07'];
  const { failed, ran } = await failingSetTests(ids);
  assert.equal(ran.length, ids.length);
  assert.deepEqual(failed, []);
});
