/**
 * Which spans are math (detect.ts): LibreOffice Math sets variables in the body font's own
 * italic (DejaVu Serif Italic beside a DejaVu Serif body), so a run of lone italic letters or
 * letter pairs in the body family is a variable, while italic prose (emphasis, two-letter English
 * words) stays text, and upright body text never becomes math.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isMathSpan } from '../../server/layout/math/detect';
import type { TextSpan } from '../../server/model/content';

const BODY = 'DejaVuSerif';

function span(text: string, fontName: string, italic: boolean): TextSpan {
  return { text, fontName, italic, monospace: false, fontSize: 12, bbox: { x0: 0, y0: 0, x1: 10, y1: 12 } };
}

test('lone italic letters and letter pairs in the body family are variables', () => {
  for (const t of ['x', ' a', 'dx', 'xy', ' b', 'N'])
    assert.equal(isMathSpan(span(t, 'CAAAAA+DejaVuSerif-Italic', true), BODY), true, t);
});

test('italic prose in the body family stays text', () => {
  for (const t of ['is', ' of', 'in', 'a priori', 'emphasis', 'not this', 'x marks'])
    assert.equal(isMathSpan(span(t, 'CAAAAA+DejaVuSerif-Italic', true), BODY), false, t);
});

test('upright body text is never a variable, however short', () => {
  for (const t of ['x', 'a', 'dx', 'I']) assert.equal(isMathSpan(span(t, 'CAAAAA+DejaVuSerif', false), BODY), false, t);
});

test('an OpenSymbol operator is math; italic letters in another family keep their old rule', () => {
  assert.equal(isMathSpan(span('+', 'EAAAAA+OpenSymbol', false), BODY), true);
  assert.equal(isMathSpan(span('sin', 'Liberation-Serif-Italic', true), BODY), true);
  assert.equal(isMathSpan(span('the', 'Liberation-Serif-Italic', true), BODY), false);
});
