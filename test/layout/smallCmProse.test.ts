/**
 * Issue 40, classes 5 and 8 (inline formulas, footnotes): Computer Modern's small upright sizes
 * (cmr5–8) count as math because TeX sets scripts in them (server/layout/math/detect.ts), and a run
 * of them with fewer than two long words stayed math even inside a footnote set in cmr8: ltxdoc's
 * "∗This document corresponds to IEEEconf v1.4, dated 2009/04/05." came out as "… IEEEconf
 * $v1.4,\mathrm{dated}2009/04/05.$" (IEEEconf's and chletter's manuals, real pages). A run in the
 * very font and size of its line's prose is that prose (math/inline.ts `mathMask`). Look-alikes
 * that stay formulas: scripts in cmr7 beside their base ("E = mc^2", "2^{k-1}" of amsldoc, limits of
 * testmath, "K_{n_1 n_2}", "C_B = q^3/(3ε_0 mc)"), and the rest of those two pages.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { failingSetTests } from './setTests';

/** Each failed before the rule. */
const FIXED = ['ieeeconf-p1-07', 'chletter-doc-p1-01'];
/** Formulas with scripts in cmr5–8, and the other tests of the two pages. */
const STAY = [
  'aps-p6-07',
  'amsldoc-p20-06',
  'testmath-p6-09',
  'testmath-p6-11',
  'jacow-p2-07',
  'aom-p3-10',
  'ieeeconf-p1-01',
  'ieeeconf-p1-02',
  'ieeeconf-p1-03',
  'chletter-doc-p1-02',
  'chletter-doc-p1-03',
];

test('a footnote set in cmr8 stays text past a word in another font; scripts in cmr5–8 stay math', async () => {
  const ids = [...FIXED, ...STAY];
  const { failed, ran } = await failingSetTests(ids);
  assert.equal(ran.length, ids.length, 'every test id is in the set');
  assert.deepEqual(failed, []);
});
