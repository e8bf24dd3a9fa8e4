/**
 * Issue 23, class 8: heading levels by typographic rank, the title `#`. sample.pdf (LibreOffice
 * Writer from sample.expected.md): a 16 pt title over numbered 14 pt sections and 12 pt text,
 * with a formula whose brackets are drawn at 32 pt.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileMarkdown, fixture, headings } from './convertFile';
import { statsFromHistogram } from '../../server/pdf/open';
import { corpusPath } from '../helpers/corpus';
import { pageToMarkdown } from '../../server/doctags/markdown';

test('sample.pdf: the title is `#` and the sections follow their rank, as in sample.expected.md', async () => {
  const md = await fileMarkdown(fixture('sample.pdf'));
  const expected = headings(readFileSync(fixture('sample.expected.md'), 'utf8'));
  assert.deepEqual(headings(md), expected);
  assert.equal(expected[0], '# Sliding Window Attention for Efficient Inference');
});

test('a size that holds no letters (a formula bracket) ranks no heading', () => {
  const chars = new Map([
    [12, 3000],
    [14, 60],
    [16, 48],
    [32, 2],
  ]);
  const letters = new Map([
    [12, 2500],
    [14, 50],
    [16, 42],
    [32, 0],
  ]);
  assert.deepEqual(statsFromHistogram(chars, letters).headingSizes, [16, 14]);
  assert.deepEqual(statsFromHistogram(chars).headingSizes, [32, 16, 14]);
});

test('an arXiv paper (pdfTeX, Times): the centred 14 pt title is `#` over a 20 pt stamp up the margin; "1. Introduction" in URW Medi is a `##` heading', async () => {
  const md = await fileMarkdown(corpusPath('opendataloader-samples/1901.03003.pdf'), [1]);
  const hs = headings(md);
  assert.equal(hs[0], '# MORAN: A Multi-Object Rectified Attention Network for Scene Text Recognition', hs.join('\n'));
  assert.ok(hs.includes('## 1. Introduction'), hs.join('\n'));
});

test('a heading keeps its section number unescaped: a heading starts no list', () => {
  const md = pageToMarkdown([
    { cls: 'section_header', text: '1. Introduction', level: 1 },
    { cls: 'section_header', text: '2) Methods #', level: 2 },
  ]).markdown;
  assert.equal(md, '## 1. Introduction\n\n### 2) Methods \\#');
});

test('a bold lead-in followed by regular words is a list item or a paragraph, not a heading (issue 23 class 10)', async () => {
  const md = await fileMarkdown(corpusPath('docling/pdf/multi_page.pdf'));
  assert.ok(
    md.includes('\n- IBM MT/ST (Magnetic Tape/Selectric Typewriter): Introduced in 1964, this machine combined'),
    md.slice(0, 1500),
  );
  const insec = await fileMarkdown(corpusPath('opendataloader-samples/2408.02509v1.pdf'), [7]);
  assert.ok(!/^#+ Average Vulnerability/m.test(insec), insec);
  assert.ok(insec.includes('Average Vulnerability and Functional Correctness In Figure 2, we present'), insec);
});
