/**
 * OCR'd justified lines (server/layout/lines/justifiedOcr.ts) on plain word boxes: the pieces of one
 * stretched line are one line, table rows and ragged lines are not, and the recognizer's full
 * stop at the end of a crop goes where the text runs on in lower case. The real scans are in
 * test/pipeline/ocrThreeColumns.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildLines } from '../../server/layout/lines/index';
import { isJustifiedOcrProse } from '../../server/layout/lines/justifiedOcr';
import type { TextSpan } from '../../server/model/content';
import { ocrRow as row } from '../helpers/ocrWords';

/** Full justified lines: they make the column's edges at 50 and 200. */
function column(from: number, n: number): TextSpan[] {
  const out: TextSpan[] = [];
  for (let k = 0; k < n; k++)
    out.push(
      ...row(from + k * 14, [
        ['river', 50, 80],
        ['valley', 90, 125],
        ['journey', 135, 170],
        ['ancient', 178, 200],
      ]),
    );
  return out;
}

test('the pieces of a stretched justified line are one line; a row of cells is not', () => {
  const spans = [
    ...column(100, 6),
    // Cut by the detector at a 5 em space: two pieces, from edge to edge.
    ...row(190, [['language', 50, 100]]),
    ...row(190, [['temperature', 140, 200]]),
    // A table row: numbers, uneven gaps.
    ...row(204, [['North', 50, 80]]),
    ...row(204, [
      ['34', 120, 132],
      ['16.4', 160, 180],
      ['1.42', 186, 200],
    ]),
  ];
  const lines = buildLines(spans).map((l) => l.text);
  assert.ok(lines.includes('language temperature'), lines.join(' | '));
  assert.ok(lines.includes('North') && !lines.some((l) => l.startsWith('North 34')), lines.join(' | '));
});

test("the recognizer's full stop at a crop's end is dropped where the text goes on in lower case", () => {
  const spans = [
    ...column(100, 6),
    ...row(190, [
      ['measurement', 50, 110],
      ['shows.', 120, 200],
    ]),
    ...row(204, [
      ['mountain', 50, 100],
      ['etc.', 170, 200],
    ]),
    ...row(218, [
      ['small', 50, 80],
      ['river.', 170, 200],
    ]),
    ...row(232, [
      ['The', 50, 70],
      ['valley', 80, 200],
    ]),
  ];
  const lines = buildLines(spans).map((l) => l.text);
  assert.ok(lines.includes('measurement shows'), 'a stop before "mountain" is an artefact: ' + lines.join(' | '));
  assert.ok(lines.includes('mountain etc.'), 'abbreviations keep their stop');
  assert.ok(lines.includes('small river.'), 'a sentence end before "The" stays');
});

/** Evenly spaced words from `x0` to `x1` (a justified line of a column). */
function stretched(y: number, x0: number, x1: number, words: string[]): TextSpan[] {
  const w = 30;
  const gap = (x1 - x0 - w * words.length) / (words.length - 1);
  return row(
    y,
    words.map((t, k) => [t, x0 + k * (w + gap), x0 + k * (w + gap) + w] as [string, number, number]),
  );
}

test('a block of words across two justified columns is prose; a table with numbers and uneven gaps is not', () => {
  // Two columns, 50–200 and 210–360, of justified lines, three or four words each.
  const page: TextSpan[] = [];
  for (let k = 0; k < 8; k++) {
    const y = 100 + k * 14;
    page.push(
      ...stretched(y, 50, 200, k % 2 ? ['river', 'valley', 'journey'] : ['shore', 'orchard', 'winter', 'bridge']),
    );
    page.push(
      ...stretched(y, 210, 360, k % 2 ? ['market', 'letter', 'garden', 'ledger'] : ['island', 'forest', 'season']),
    );
  }
  // What alignment took for a table: the last words of three left rows and the first of the right ones.
  const block = page
    .map((s, i) => i)
    .filter(
      (i) => page[i]!.bbox.y0 >= 128 && page[i]!.bbox.y0 <= 156 && page[i]!.bbox.x0 > 120 && page[i]!.bbox.x0 < 300,
    );
  assert.ok(block.length >= 6, `the block has ${block.length} words`);
  assert.equal(isJustifiedOcrProse(block, page), true);
  // A table in the same place, edge to edge: its gaps follow the cells' lengths, and it has numbers.
  const table: TextSpan[] = [...page.filter((s) => s.bbox.y0 < 128)];
  const cells: [string, number, number][][] = [
    [
      ['Name', 50, 80],
      ['Role', 110, 135],
      ['Place', 170, 200],
    ],
    [
      ['Ann', 50, 68],
      ['surveyor', 110, 150],
      ['12', 188, 200],
    ],
    [
      ['Bo', 50, 62],
      ['clerk', 110, 136],
      ['7', 194, 200],
    ],
    [
      ['Cyril', 50, 76],
      ['engineer', 110, 152],
      ['104', 182, 200],
    ],
  ];
  cells.forEach((c, k) => table.push(...row(200 + k * 14, c)));
  const rows = table.map((s, i) => i).filter((i) => table[i]!.bbox.y0 >= 200);
  assert.equal(isJustifiedOcrProse(rows, table), false);
});
