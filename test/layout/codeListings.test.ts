/**
 * Issue 31 class 4: code listings typeset on a fixed pitch (LaTeX `listings`, which kerns every
 * token into its column) came out tokenised, "function add (a , b ) {" and
 * "console . log ( add (3 , 5) ) ;". Real pages cut alone with the set's person-checked tests:
 * docling's code_and_formula.pdf (pdfLaTeX + listings).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { failingSetTests } from './setTests';

test('a fixed-pitch listing keeps its own spacing: one fenced block, no space before "(" or ","', async () => {
  const ids = ['codeformula-p1-02', 'codeformula-p1-03', 'codeformula-p1-04', 'codeformula-p1-06', 'codeformula-p1-07'];
  const { failed, ran } = await failingSetTests(ids);
  assert.equal(ran.length, ids.length);
  assert.deepEqual(failed, []);
});
