/**
 * Issue 31, heading levels (b): lines made headings that are not. A keyword list under
 * "Keywords" ("finite fields, fast arithmetic, …", 12 pt over a 9 pt abstract), the "and" and the
 * flush-right party roles of a judgment's caption ("Plaintiff/Respondent"), a bold label ending in
 * a colon ("ACM Reference Format:"), and ACM sigconf paragraphs in a 9 pt body that a page's 7 pt
 * reference list made "larger than the body". Real pages (pdf.js's test corpus, Debian's TeX Live
 * documentation), each cut alone as the real-world set does; the real headings beside them stay.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { failingSetTests } from './setTests';
import { headings } from './convertFile';
import { pageMarkdownOf } from './pageOfTest';

test('a keyword list opening in lower case is text; "Keywords" and "1 Introduction" stay headings', async () => {
  const { failed } = await failingSetTests(['oef-paper-p1-01', 'oef-paper-p1-02', 'oef-paper-p1-03']);
  assert.deepEqual(failed, []);
  const md = await pageMarkdownOf('oef-paper-p1-03');
  assert.ok(headings(md).includes('## Keywords'), md);
  assert.ok(md.includes('\nfinite fields, fast arithmetic, binomials'), md);
});

test('a judgment caption: "and" and the flush-right party roles are text, the court and parties stay', async () => {
  const { failed } = await failingSetTests(['iesc-judgment-p1-02', 'iesc-judgment-p1-03', 'iesc-judgment-p1-04']);
  assert.deepEqual(failed, []);
  const md = await pageMarkdownOf('iesc-judgment-p1-02');
  assert.ok(headings(md).includes('## KATHRYN SINNOTT'), md);
  assert.ok(/^Plaintiff\/Respondent$/m.test(md), md);
  // A right column's heads start where its paragraphs start: MNRAS's "1 INTRODUCTION" stays.
  const { failed: mn } = await failingSetTests(['mnras-p1-05']);
  assert.deepEqual(mn, []);
  const mnras = headings(await pageMarkdownOf('mnras-p1-05'));
  assert.ok(mnras.includes('## 2 OBTAINING AND INSTALLING THE MNRAS PACKAGE'), mnras.join('\n'));
});

test('acmart: Libertine bold sets "1 INTRODUCTION" apart; the bold "ACM Reference Format:" label is text', async () => {
  const { failed } = await failingSetTests(['acm-small-p1-01', 'acm-small-p1-02', 'acm-small-p1-04']);
  assert.deepEqual(failed, []);
  const md = await pageMarkdownOf('acm-small-p1-04');
  assert.deepEqual(headings(md), ['# The Name of the Title Is Hope', '## 1 INTRODUCTION']);
  assert.ok(/^ACM Reference Format:$/m.test(md), md);
});

test('a 9 pt body beside a 7 pt reference list is text; the page heads stay', async () => {
  const md = await pageMarkdownOf('acm-sigconf-p5-01');
  assert.deepEqual(headings(md), [
    '## 14 ACKNOWLEDGMENTS',
    '## 15 APPENDICES',
    '## 16 MULTI-LANGUAGE PAPERS',
    '## 17 SIGCHI EXTENDED ABSTRACTS',
    '## ACKNOWLEDGMENTS',
    '## REFERENCES',
  ]);
  assert.ok(/^This section has a special environment:$/m.test(md), md);
});

test("a sentence a size over the body is text; the newsletter's bold capitals heads stay", async () => {
  const { failed } = await failingSetTests([
    'dragon-newsletter-p1-04',
    'dragon-newsletter-p1-05',
    'dragon-newsletter-p1-09',
  ]);
  assert.deepEqual(failed, []);
  const md = await pageMarkdownOf('dragon-newsletter-p1-05');
  const hs = headings(md);
  assert.ok(
    hs.includes('## STATEWIDE SUBSTITUTE TEACHER SHORTAGE') || hs.includes('### STATEWIDE SUBSTITUTE TEACHER SHORTAGE'),
    hs.join('\n'),
  );
  assert.ok(!hs.some((h) => h.includes('Traffic Volunteers')), hs.join('\n'));
});

test("a logo's big letters with small words at their foot are no heading; the page's heads stay", async () => {
  const { failed } = await failingSetTests([
    'flowfram-brochure-p2-04',
    'flowfram-brochure-p2-05',
    'flowfram-brochure-p3-03',
    'flowfram-brochure-p3-04',
    'flowfram-brochure-p3-05',
  ]);
  assert.deepEqual(failed, []);
  const md = await pageMarkdownOf('flowfram-brochure-p2-04');
  assert.ok(/^FLF\b/m.test(md), md);
});
