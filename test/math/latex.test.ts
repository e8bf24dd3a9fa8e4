/** LaTeX normalization for formula comparison (eval/metrics/latex.ts) and Markdown formula extraction. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formulasOf, matchFormulas, normalizeLatex } from '../../eval/metrics/latex';

test('normalization removes spelling differences that do not change the formula', () => {
  const same = (a: string, b: string) => assert.equal(normalizeLatex(a), normalizeLatex(b), `${a} vs ${b}`);
  same(
    '\\mathrm{softmax}\\left(\\frac{Q K^{\\top}}{\\sqrt{d_k}}\\right) V',
    '\\mathrm{softmax}(\\frac{QK^{\\top}}{\\sqrt{d_{k}}})V',
  );
  same('\\dfrac{a}{b}', '\\frac{a}{b}');
  same('x \\le y', 'x\\leq y');
  same('131\\,000 \\text{ tokens.}', '131000\\mathrm{tokens.}');
  same('f(x) \\tag{1}', 'f(x)');
});

test('normalization keeps real differences', () => {
  const differ = (a: string, b: string) => assert.notEqual(normalizeLatex(a), normalizeLatex(b), `${a} vs ${b}`);
  differ('x^{2}', 'x_{2}');
  differ('\\frac{a}{b}', '\\frac{b}{a}');
  differ('\\frac{a+b}{c}', 'a+\\frac{b}{c}');
});

test('formulas are read from Markdown: display, inline, not code or escaped dollars', () => {
  const f = formulasOf('Text $x^2$ and \\$5.\n\n$$a+b$$\n\n```\n$not$\n```\n');
  assert.deepEqual(f.display, ['a+b']);
  assert.deepEqual(f.inline, ['x^2']);
  assert.deepEqual(matchFormulas(['x^{2}', 'y'], ['x^2']), { gt: 2, exact: 0, normalized: 1 });
});
