/**
 * Issue 23, class 2: TeX draws an accented letter as the letter plus a spacing accent glyph over
 * it; the text layer reads "Forn´es", or "M¨" and "undler" as two runs. Real pdfTeX papers from
 * arXiv (the shared corpus) must read with the precomposed letters, as pdftotext writes them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileMarkdown } from './convertFile';
import { corpusPath } from '../helpers/corpus';
import { composeAccents } from '../../server/layout/lines/normalize';
import { pageMarkdownOf } from './pageOfTest';

test('an accent over the first letter of the next run joins it (INSEC paper, page 1)', async () => {
  const md = await fileMarkdown(corpusPath('opendataloader-samples/2408.02509v1.pdf'), [1]);
  assert.ok(md.includes('Niels Mündler'), md.slice(0, 600));
  assert.ok(!md.includes('¨'), 'no spacing diaeresis left');
});

test('accents inside a run are composed (MORAN paper, references)', async () => {
  const md = await fileMarkdown(corpusPath('opendataloader-samples/1901.03003.pdf'), [13]);
  for (const name of ['J. Almazán', 'A. Fornés']) assert.ok(md.includes(name), `${name} in:\n${md.slice(0, 3000)}`);
  assert.ok(!/[´¨]/.test(md), 'no spacing acute or diaeresis left');
});

test('only pairs that make a letter are composed', () => {
  assert.equal(
    composeAccents('Poincar´e, Erd˝os, ˇCech, Garc¸on, Ł´od´z, na¨ıve'),
    'Poincaré, Erdős, Čech, Garçon, Łódź, naïve',
  );
  assert.equal(composeAccents('Don´t tag it'), 'Don´t tag it', 'an acute typed for an apostrophe stays');
  assert.equal(composeAccents('x¨'), 'x¨');
  assert.equal(composeAccents('plain text'), 'plain text');
  assert.equal(composeAccents('Th´eor`eme, S´eminaire Initiation `a', true), 'Théorème, Séminaire Initiation à');
  assert.equal(composeAccents('run `echo` here', true), 'run `echo` here', 'backtick pairs are code');
  assert.equal(composeAccents('Th´eor`eme', false), 'Théor`eme', 'no grave in code lines');
});

test('two graves in a line are no code span; a line with inline math composes too', () => {
  assert.equal(composeAccents('D’apr`es ce th´eor`eme', true), 'D’après ce théorème');
  assert.equal(composeAccents('c’est-`a-dire o`u de z `a z (d’apr`es', true), 'c’est-à-dire où de z à z (d’après');
  assert.equal(composeAccents('see `ls -l` and `pwd`', true), 'see `ls -l` and `pwd`', 'code spans stay');
});

test('the aomart French sample: graves in the abstract, acutes beside inline math (pages 1 and 2)', async () => {
  const p1 = await pageMarkdownOf('aomfr-p1-03');
  assert.ok(p1.includes('D’après ce théorème, si deux chemins différents'), p1.slice(0, 1500));
  const p2 = await pageMarkdownOf('aomfr-p2-07');
  assert.ok(p2.includes('Par des arguments de continuité uniforme de $f$'), p2.slice(0, 3000));
  assert.ok(p2.includes('le cercle unité alors l’intégrale'), p2.slice(0, 3000));
  assert.ok(!/[´`]/.test(p2.replace(/\$[^$]*\$/g, '')), 'no spacing acute or grave left in the text');
  // A capital's accent is a raised run of its own starting right of its letter.
  assert.match(p2, /^## 1\. Énoncé$/m);
  assert.ok(!p2.includes('WIKIP'), 'the running head "WIKIPÉDIA" is no display formula (and is furniture)');
});
