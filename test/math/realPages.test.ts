/**
 * Display formulas of real typeset pages (issue 31, class 8), read from their glyphs:
 * - a display fraction all in the text font (XeLaTeX/CM `\frac{1}{1+\frac{1}{x}}`: digits and
 *   `+` are CMR, so no line of it looked like math and it came out as loose text);
 * - a prime and a subscript on one letter, written `I'_{…}` as sources do (arXiv 1901.03003 p5);
 * - italic words in a formula kept as letters (`y_{prev}`, 1901.03003 p6), not `\mathrm`;
 * - `\mathbf{q}` set in the text family's bold (asmejour, TeXGyreTermesX-Bold);
 * - TeX's `\|` (cmsy's ∥) in pairs is a norm, `\|v\|` (amsmath's testmath.pdf p6);
 * - digits and operators of a font subset pdf.js calls monospace (CMR10's `+`, `=`; Nimbus
 *   digits) stay in the formula instead of becoming a code block (uantwerpen report p9).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileMarkdown, fixture } from '../layout/convertFile';
import { corpusPath } from '../helpers/corpus';

function display(md: string): string[] {
  return [...md.matchAll(/\$\$([\s\S]+?)\$\$/g)].map((m) => m[1]!.replace(/\s*\\tag\{[^}]*\}$/, '').trim());
}

function need(file: string, pkg: string): string {
  assert.ok(existsSync(file), `${file} is missing: install ${pkg} (scripts/test-deps.sh)`);
  return file;
}

test('a display fraction set all in the text font is a formula (XeLaTeX, Computer Modern)', async () => {
  const md = await fileMarkdown(fixture('math', 'xelatex-cm-math.pdf'), [1]);
  assert.ok(display(md).includes('\\frac{1}{1+\\frac{1}{x}}'), md);
  assert.ok(!/^1 1 \+/m.test(md), 'the fraction does not stay as loose text');
});

test('primes come before subscripts; italic words stay letters (arXiv 1901.03003)', async () => {
  const pdf = corpusPath('opendataloader-samples/1901.03003.pdf');
  const p5 = display(await fileMarkdown(pdf, [5]));
  assert.ok(p5.includes("I'_{(i,j)}=I_{(i',j')}"), p5.join('\n'));
  const p6 = display(await fileMarkdown(pdf, [6]));
  assert.ok(p6.includes('s_{t}=GRU(y_{prev},g_{t},s_{t-1})'), p6.join('\n'));
  assert.ok(p6.includes('y_{t}=Softmax(W_{out}s_{t}+b_{out})'), p6.join('\n'));
});

test('a letter in the bold text font is \\mathbf (asmejour, newtx)', async () => {
  const pdf = need('/usr/share/doc/texlive-doc/latex/asmejour/asmejour-template.pdf', 'texlive-publishers-doc');
  assert.ok(display(await fileMarkdown(pdf, [1])).includes('\\mathbf{q}=-k\\nabla T'));
});

test('paired ∥ is a norm \\| (amsmath testmath.pdf)', async () => {
  const pdf = need('/usr/share/doc/texlive-doc/latex-dev/amsmath/testmath.pdf', 'texlive-latex-extra-doc');
  const f = display(await fileMarkdown(pdf, [6]));
  assert.ok(f.includes('\\lim_{v\\to0}\\frac{H(z+v)-H(z)-BH(z)v}{\\|v\\|}=0.'), f.join('\n'));
});

test('digits and operators of a "monospace" subset stay in the formula (uantwerpen report)', async () => {
  const pdf = need(
    '/usr/share/doc/texlive-doc/latex/uantwerpendocs/uantwerpenreport-example.pdf',
    'texlive-publishers-doc',
  );
  const md = await fileMarkdown(pdf, [9]);
  assert.ok(display(md).includes('e^{-j\\pi}+1=0'), md);
  assert.ok(!md.includes('```\n+ 1 = 0'), 'no code block of the formula tail');
});

test('a radical index sits in the sign, whose glyph box says little (XeLaTeX CM and unicode-math)', async () => {
  // CMSY's √ hangs below its baseline; Latin Modern Math's √ box is the font's ascent.
  for (const file of ['xelatex-cm-math.pdf', 'xelatex-unicode-math.pdf']) {
    const f = display(await fileMarkdown(fixture('math', file), [1]));
    assert.ok(f.includes('\\sqrt[3]{a+b}'), `${file}: ${f.join('\n')}`);
  }
});

test('LibreOffice Math: overhanging bars, deep numerators, sums in a denominator, binomials', async () => {
  const f = display(await fileMarkdown(fixture('math', 'libreoffice-math.pdf')));
  for (const want of [
    '\\frac{1}{1+\\frac{1}{x}}', // the outer bar overhangs the formula's glyphs
    'A=\\begin{pmatrix}a & b \\\\ c & d\\end{pmatrix}', // "=" overlaps the big "(" box
    '\\sum_{n=1}^{\\infty}\\frac{1}{n^{2}}=\\frac{\\pi^{2}}{6}', // OpenSymbol π's box reaches below the bar
    '\\mathrm{softmax}(z)_{i}=\\frac{e^{z_{i}}}{\\sum_{j}e^{z_{j}}}', // ∑ inside the denominator
    '\\binom{n}{k}=\\frac{n!}{k!(n-k)!}', // tall parentheses do not reach the next formula
  ])
    assert.ok(f.includes(want), `${want} not in:\n${f.join('\n')}`);
});

test('Chromium KaTeX: \\not overlays, KaTeX_Size delimiters, matrices not taken for tables', async () => {
  const pdf = fixture('math', 'chromium-katex-math.pdf');
  const f = display(await fileMarkdown(pdf));
  for (const want of [
    'x\\leq y\\geq z\\neq w', // "=" with KaTeX's \not glyph (U+E020) over it
    'A=\\begin{pmatrix}a & b \\\\ c & d\\end{pmatrix}', // KaTeX_Size3 parentheses at the text's size
    '\\binom{n}{k}=\\frac{n!}{k!(n-k)!}',
  ])
    assert.ok(f.includes(want), `${want} not in:\n${f.join('\n')}`);
  // The cases' rows were read as a table by alignment.
  assert.ok(
    f.some((l) => l.endsWith('=\\begin{cases}x & x\\geq0 \\\\ -x & x<0\\end{cases}')),
    f.join('\n'),
  );
});

test('newtx subscripts at 0.81 of the text size, limits with primes (acmart, testmath)', async () => {
  const sigconf = need('/usr/share/doc/texlive-doc/latex/acmart/samples/sample-sigconf.pdf', 'texlive-publishers-doc');
  const s = display(await fileMarkdown(sigconf, [3]));
  assert.ok(s.includes('\\sum_{i=0}^{\\infty}x_{i}=\\int_{0}^{\\pi+2}f'), s.join('\n'));
  const testmath = need('/usr/share/doc/texlive-doc/latex-dev/amsmath/testmath.pdf', 'texlive-latex-extra-doc');
  const t = display(await fileMarkdown(testmath, [6]));
  assert.ok(
    t.some((l) => l.startsWith("\\lim_{(v,v')\\to(0,0)}\\frac{")),
    t.join('\n'),
  );
});

test('binomials in a cmex without ToUnicode; inline ones stay in their sentence (amsldoc p20)', async () => {
  const pdf = need('/usr/share/doc/texlive-doc/latex-dev/amsmath/amsldoc.pdf', 'texlive-latex-extra-doc');
  const md = await fileMarkdown(pdf, [20]);
  const f = display(md);
  assert.ok(f.includes('2^{k}-\\binom{k}{1}2^{k-1}+\\binom{k}{2}2^{k-2}'), f.join('\n'));
  // "and" between two code spans, and the inline binomial's parts, are not formula material.
  assert.ok(!f.some((l) => l.includes('\\mathrm{and}') || /\\mathbf\{a\}/.test(l)), f.join('\n'));
  assert.ok(
    f.some((l) => l.startsWith('\\frac{1}{k}\\log_{2}c(f)')),
    f.join('\n'),
  );
});
