/**
 * Line grouping around inline math (layout/lines/index.ts): a superscript raised above its sentence
 * (LibreOffice Math's "x²" inside a Writer paragraph: the "2" sits higher than the text's
 * middle, so it sorts first) stays on the sentence's line instead of becoming a line of its own,
 * while a small number that touches nothing (a page number under the text) keeps its own line;
 * and an upright function name between math runs joins the inline formula.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildLines } from '../../server/layout/lines/index';
import type { TextSpan } from '../../server/model/content';

function span(text: string, x0: number, y0: number, x1: number, y1: number, fontSize: number): TextSpan {
  return { text, fontName: 'DejaVuSerif', monospace: false, fontSize, bbox: { x0, y0, x1, y1 } };
}

// Geometry of "The square x² grows fast." in the LibreOffice Writer/Math PDF of eval:math.
const sentence = [
  span('The square', 56.8, 494.5, 125.0, 508.4, 12),
  span(' x', 129.5, 491.8, 136.3, 505.7, 12),
  span('2', 136.3, 490.2, 140.9, 498.6, 7.2),
  span('grows fast.', 145.0, 494.5, 212.3, 508.4, 12),
];

test('a raised superscript that sorts before its line joins that line', () => {
  const lines = buildLines(sentence);
  assert.equal(lines.length, 1, lines.map((l) => l.text).join(' | '));
  assert.deepEqual(
    lines[0]!.spans.map((s) => s.text.trim()),
    ['The square', 'x', '2', 'grows fast.'],
  );
});

test('a small number touching no span of the line keeps its own line', () => {
  const lines = buildLines([...sentence.filter((s) => s.text !== '2'), span('2', 300, 490.2, 304.6, 498.6, 7.2)]);
  assert.equal(lines.length, 2, lines.map((l) => l.text).join(' | '));
});

test('an upright function name between math runs belongs to the formula (O(n log n))', async () => {
  const { lineWithMath } = await import('../../server/layout/math/inline');
  const italic = (t: string, x0: number, x1: number): TextSpan => ({
    ...span(t, x0, 558.2, x1, 572.1, 11.9),
    fontName: 'DejaVuSerif-Italic',
    italic: true,
  });
  const sym = (t: string, x0: number, x1: number): TextSpan => ({
    ...span(t, x0, 561.0, x1, 571.9, 11.9),
    fontName: 'OpenSymbol',
  });
  // Geometry of "Sorting takes O(n log n) comparisons." in the LibreOffice Writer/Math PDF.
  const spans = [
    span('Sorting takes', 56.8, 561.5, 138.3, 575.4, 12),
    italic(' O', 142.1, 151.9),
    sym(' (', 153.4, 157.5),
    italic('n', 157.9, 165.6),
    span(' log', 166.9, 558.2, 185.6, 572.1, 11.9),
    italic(' n', 187.5, 195.2),
    sym(')', 196.0, 200.1),
    span('comparisons.', 204.0, 561.5, 280.0, 575.4, 12),
  ];
  const [line] = buildLines(spans);
  const isMath = (s: TextSpan) => s.italic === true || s.fontName === 'OpenSymbol';
  const latex: string[] = [];
  const text = lineWithMath(line!, isMath, latex);
  assert.equal(latex.length, 1, text);
  assert.equal(latex[0], 'O(n\\log n)');
  assert.match(text, /^Sorting takes \uE1000\uE101 comparisons\.$/);
});
