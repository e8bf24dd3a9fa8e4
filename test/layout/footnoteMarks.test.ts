/**
 * Issue 31 class 7: a footnote mark set as a small raised letter in the math font ("Snᵃ" in a
 * table, "ᵃ Some tables require footnotes.") came out as inline math glued to the word
 * ("Sn$a$", "$a$ Some tables…"). REVTeX's APS sample, page 5, cut alone, with the set's
 * person-checked tests; its inline formulas elsewhere stay math.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { failingSetTests } from './setTests';

test('raised footnote marks after a word or opening a footnote are superscript text, not $…$', async () => {
  const ids = ['aps-p5-09', 'aps-p5-10', 'aps-p5-11', 'aps-p5-12', 'aps-p5-08'];
  const { failed, ran } = await failingSetTests(ids);
  assert.equal(ran.length, ids.length);
  assert.deepEqual(failed, []);
});
