/**
 * OCR'd justified lines (server/layout/lines/justifiedOcr.ts) on plain word boxes: the pieces of one
 * stretched line are one line, table rows and ragged lines are not, and the recognizer's full
 * stop at the end of a crop goes where the text runs on in lower case. The real scans are in
 * test/pipeline/ocrThreeColumns.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildLines } from '../../server/layout/lines/index';
import type { TextSpan } from '../../server/model/content';

/** Words of one line, each [text, x0, x1], at row y (a 10 pt column from x 50 to 200). */
function row(y: number, words: [string, number, number][]): TextSpan[] {
  return words.map(([text, x0, x1], i) => ({
    text,
    bbox: { x0, y0: y, x1, y1: y + 12 },
    fontSize: 12,
    fontName: 'ocr',
    monospace: false,
    eol: i === words.length - 1,
  }));
}

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
