import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeCorpusPdf } from './analyze';
import { isPageNumber } from '../../server/pipeline/furniture';

test('repeated footers and page numbers across pages become furniture', async () => {
  const pages = await analyzeCorpusPdf('docling/pdf/redp5110_sampled.pdf', {}, [2, 3, 4, 5, 6]);
  const footers = pages.flatMap((p) => p.items.filter((i) => i.cls === 'page_footer').map((i) => i.text));
  assert.ok(footers.filter((t) => t.startsWith('© Copyright IBM Corp. 2014')).length >= 2, footers.join(' | '));
  assert.ok(footers.some((t) => t === 'iii' || t === '1' || t === '2'), 'page numbers');
  // Body text is never furniture.
  const body = pages.flatMap((p) => p.items.filter((i) => i.cls === 'text'));
  assert.ok(body.length > 5);
});

test('a running header repeated on the pages of a Korean report', async () => {
  const pages = await analyzeCorpusPdf('docling/pdf/normal_4pages.pdf');
  const headers = pages.flatMap((p) => p.items.filter((i) => i.cls === 'page_header').map((i) => i.text));
  assert.ok(headers.filter((t) => t === '이슈와 논점').length >= 2, headers.join(' | '));
});

test('page-number shapes', () => {
  for (const t of ['12', '- 3 -', 'Page 4', 'page 2 of 10', '3/10', 'xi']) assert.ok(isPageNumber(t), t);
  for (const t of ['Introduction', '2020 results', 'Figure 3']) assert.ok(!isPageNumber(t), t);
});
