/**
 * Issue 31, heading levels: outline-numbered heads and the title of a page cut alone. REVTeX (APS
 * and AIP samples) and AIAA number sections I., A., 1. and set them a size under the body (9 pt bold
 * over 10 pt; the third level in italics), so size and weight did not make them headings and "1."
 * read as a list item; a "1." under "A." is a third-level head. A lone page's title set at 1.2× the
 * body was a `##`; a numbered head at the top of a page cut alone was taken for its title; a head
 * broken over two blocks came out as two. Real pages from Debian's TeX Live documentation and the
 * PDF Association's reference suite, each cut alone as the real-world set does; the checks are
 * the set's person-checked tests, and the look-alike lines beside them must stay what they are.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { failingSetTests } from './setTests';
import { fileMarkdown, fixture, headings } from './convertFile';
import { outlineKind } from '../../server/layout/blocks/outline';
import { pageMarkdownOf } from './pageOfTest';

test('REVTeX and AIAA outline heads: I. is `##`, A. `###`, 1. under A. `####`; Appendix A is `##`', async () => {
  const ids = [
    'aps-p1-03',
    'aps-p1-04',
    'aps-p1-05',
    'aps-p2-05',
    'aps-p6-01',
    'aps-p6-02',
    'aps-p6-03',
    'aip-p1-06',
    'aip-p1-07',
    'aiaa-p1-02',
    'aiaa-p1-03',
    'aiaa-p1-04',
  ];
  const { failed, ran } = await failingSetTests(ids);
  assert.equal(ran.length, ids.length);
  assert.deepEqual(failed, []);
});

test('a run-in head ("a. Note (…) The width-") and run-in paragraph labels stay in the text', async () => {
  const p1 = await pageMarkdownOf('aps-p1-03');
  const hs = headings(p1);
  assert.deepEqual(
    hs.map((h) => h.replace(/:.*/, '')),
    [
      '# Manuscript Title',
      '## I. FIRST-LEVEL HEADING',
      '### A. Second-level heading',
      '#### 1. Wide text (A level-3 head)',
      '### B. Citations and References',
      '#### 1. Citations',
    ],
    hs.join('\n'),
  );
  assert.ok(/^- a\. Note \(Fourth-level head is run in\)/m.test(p1), p1);
  const p2 = await pageMarkdownOf('aps-p2-05');
  assert.deepEqual(headings(p2), ['#### 2. Example citations', '#### 3. References', '#### 4. Example references']);
  const { failed } = await failingSetTests(['aps-p2-01', 'aps-p2-02', 'aps-p2-03']);
  assert.deepEqual(failed, []);
});

test('a lone page: a centred 12 pt title over a 10 pt body is `#`; a numbered head is never the title', async () => {
  const { failed } = await failingSetTests(['aps-p1-01', 'aps-p1-02', 'acm-sigconf-p5-01', 'bookchapter-de-p4-03']);
  assert.deepEqual(failed, []);
  // ACM sigconf page 5: its largest text is "14 ACKNOWLEDGMENTS"; nothing on the page is a title.
  const acm = headings(await pageMarkdownOf('acm-sigconf-p5-01'));
  assert.ok(!acm.some((h) => h.startsWith('# ')), acm.join('\n'));
});

test('section numbers against sizes: "2.2" at 16 pt over "2.1.6" at 13 pt is `##` over `###`; one depth keeps its depth', async () => {
  const ids = ['redp-p8-02', 'redp-p8-03', 'redp-p8-04', 'bookchapter-de-p4-03', 'bookchapter-de-p4-04'];
  // Look-alikes: a page with "4.1." and "4.2." only (MORAN p9), pages whose numbering starts at
  // the top depth (INSEC p4, PMLR p1).
  const alike = [
    'moran-p9-06',
    'moran-p9-07',
    'insec-p4-01',
    'insec-p4-02',
    'insec-p4-03',
    'pmlr-p1-05',
    'pmlr-p1-06',
    'pmlr-p1-07',
  ];
  const { failed, ran } = await failingSetTests([...ids, ...alike]);
  assert.equal(ran.length, ids.length + alike.length);
  assert.deepEqual(failed, []);
  const book = headings(await pageMarkdownOf('bookchapter-de-p4-03'));
  assert.deepEqual(
    book.map((h) => h.slice(0, 12)),
    ['## 3.3 Vorüb', '### 3.3.1 We'],
  );
});

test('a head broken over two blocks is one; neighbouring heads of one style stay apart', async () => {
  const { failed } = await failingSetTests(['papertex-p2-03', 'asme-p1-01']);
  assert.deepEqual(failed, []);
  const acm = headings(await pageMarkdownOf('acm-sigconf-p5-01'));
  assert.ok(acm.includes('## ACKNOWLEDGMENTS') && acm.includes('## REFERENCES'), acm.join('\n'));
  const geo = headings(await pageMarkdownOf('geotopo-p90-03'));
  assert.deepEqual(geo, ['## Übungsaufgaben', '### Aufgabe 8', '### Aufgabe 9', '### Aufgabe 10', '### Aufgabe 11']);
});

test('a by-line set as a head ("A. Writer and B. Reader") is no outline label: "1 Introduction" under it stays `##`', async () => {
  // The multi-column fixtures put their authors under the title in a centred head line; read as
  // the outline label "A.", it sank the page's sections to `####`.
  for (const file of ['twocol-c.xelatex.pdf', 'twocol-c.chromium.pdf', 'threecol.libreoffice.pdf']) {
    const hs = headings(await fileMarkdown(fixture('multicol', file), [1]));
    assert.ok(hs.includes('## 1 Introduction'), `${file}:\n${hs.join('\n')}`);
    assert.ok(!hs.some((h) => /^#{4,} \d/.test(h)), `${file}:\n${hs.join('\n')}`);
  }
  // Look-alikes where "A." is a label: REVTeX's and AIAA's "A. Second-level heading" keeps its
  // "1." under it at `####`; the labels and by-lines read as they are written.
  const { failed } = await failingSetTests(['aps-p1-04', 'aps-p1-05', 'aiaa-p1-03', 'aiaa-p1-04', 'aip-p1-07']);
  assert.deepEqual(failed, []);
  for (const label of ['A. Introduction', 'A. Methods and Results', 'B. Citations and References', 'A. Writer'])
    assert.equal(outlineKind(label), 'letter', label);
  for (const byline of [
    'A. Writer and B. Reader',
    'A. Writer, B. Reader and C. Author',
    'A. B. Writer',
    'J.-P. Serre and A. Writer',
  ])
    assert.equal(outlineKind(byline), undefined, byline);
});
