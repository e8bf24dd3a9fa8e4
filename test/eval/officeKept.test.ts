/**
 * The office set's "kept differences out" NED (eval/office/keptDifferences.ts): each rule takes out
 * only what it names and says that it did, on Docling's own ground truth and Folio-shaped output.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/corpus';
import { withoutKeptDifferences } from '../../eval/office/keptDifferences';

const gtOf = (fmt: string, name: string) =>
  readFileSync(join(repoRoot(), 'eval', 'office', 'docling', fmt, 'groundtruth', `${name}.md`), 'utf8');

test('spans: a spanning HTML table compares as the pipe table Docling writes for it', () => {
  const gt = gtOf('html', 'example_04.html');
  // Folio's shape of the same table: each spanning cell once, with colspan/rowspan.
  const folio = [
    '# Data Table with Rowspan and Colspan',
    '',
    '<table>',
    '<tr><th>Header 1</th><th colspan="2">Header 2 &amp; 3 (colspan)</th></tr>',
    '<tr><td rowspan="2">Row 1 &amp; 2, Col 1 (rowspan)</td><td>Row 1, Col 2</td><td>Row 1, Col 3</td></tr>',
    '<tr><td colspan="2">Row 2, Col 2 &amp; 3 (colspan)</td></tr>',
    '<tr><td>Row 3, Col 1</td><td>Row 3, Col 2</td><td>Row 3, Col 3</td></tr>',
    '</table>',
  ].join('\n');
  const k = withoutKeptDifferences(gt, folio);
  assert.deepEqual(k.applied, ['spans']);
  assert.ok(k.out.includes('Row 1 & 2, Col 1 (rowspan) Row 2, Col 2 & 3 (colspan) Row 2, Col 2 & 3 (colspan)'), k.out);
});

test('chart kinds: class paragraphs after a picture are taken out of both sides only where they differ, and said; comments stay', () => {
  const comments = withoutKeptDifferences(gtOf('xlsx', 'xlsx_comments.xlsx'), '');
  assert.deepEqual(comments.applied, []);
  assert.ok(comments.gt.includes('[author: John Reviewer]: Why Python specifically?'), comments.gt);
  const chart = withoutKeptDifferences(gtOf('pptx', 'pptx_chart.pptx'), '');
  assert.deepEqual(chart.applied, ['chart kind']);
  assert.ok(!chart.gt.includes('Bar chart') && chart.gt.includes('Wild Duck Observations by Year'));
  // Folio naming the same kinds as Docling: nothing taken out.
  const same = ['<!-- image -->', 'Bar chart', 'Data'].join('\n\n');
  const agree = withoutKeptDifferences(same, same);
  assert.deepEqual(agree.applied, []);
  assert.ok(agree.gt.includes('Bar chart') && agree.out.includes('Bar chart'));
  // A kind Folio reads from the chart part where Docling says "Other chart": out of both sides.
  const differ = withoutKeptDifferences(same.replace('Bar', 'Other'), same);
  assert.deepEqual(differ.applied, ['chart kind']);
  assert.ok(!differ.gt.includes('chart') && !differ.out.includes('Bar chart'), differ.out);
  const plain = withoutKeptDifferences(gtOf('docx', 'word_sample.docx'), '');
  assert.deepEqual(plain.applied, []);
});
