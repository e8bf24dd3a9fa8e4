/**
 * Line grouping around inline math (layout/lines.ts): a superscript raised above its sentence
 * (LibreOffice Math's "x²" inside a Writer paragraph: the "2" sits higher than the text's
 * middle, so it sorts first) stays on the sentence's line instead of becoming a line of its own,
 * while a small number that touches nothing (a page number under the text) keeps its own line.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildLines } from '../../server/layout/lines';
import type { TextSpan } from '../../server/pipeline/types';

function span(text: string, x0: number, y0: number, x1: number, y1: number, fontSize: number): TextSpan {
  return { text, fontName: 'DejaVuSerif', monospace: false, fontSize, bbox: { x0, y0, x1, y1 } };
}

// Geometry of "The square x² grows fast." in the LibreOffice Writer/Math PDF of eval:math.
const sentence = [span('The square', 56.8, 494.5, 125.0, 508.4, 12), span(' x', 129.5, 491.8, 136.3, 505.7, 12), span('2', 136.3, 490.2, 140.9, 498.6, 7.2), span('grows fast.', 145.0, 494.5, 212.3, 508.4, 12)];

test('a raised superscript that sorts before its line joins that line', () => {
  const lines = buildLines(sentence);
  assert.equal(lines.length, 1, lines.map((l) => l.text).join(' | '));
  assert.deepEqual(lines[0]!.spans.map((s) => s.text.trim()), ['The square', 'x', '2', 'grows fast.']);
});

test('a small number touching no span of the line keeps its own line', () => {
  const lines = buildLines([...sentence.filter((s) => s.text !== '2'), span('2', 300, 490.2, 304.6, 498.6, 7.2)]);
  assert.equal(lines.length, 2, lines.map((l) => l.text).join(' | '));
});
