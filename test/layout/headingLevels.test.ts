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
