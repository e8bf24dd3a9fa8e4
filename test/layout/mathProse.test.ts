/**
 * Issue 23 class 3, display formulas of a real acmart paper (texlive-publishers-doc's
 * sample-sigconf.pdf, pdfTeX with Libertine and newtx math). newtx's txmiaX sets "=" as plain
 * ASCII in a font pdf.js calls monospace, and its big operators carry a variation selector
 * ("∑︁" = U+2211 U+FE01): the "=" of every limit and relation was lost and the selector came out
 * as `\text{︁}`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileMarkdown } from './convertFile';

const SIGCONF = '/usr/share/doc/texlive-doc/latex/acmart/samples/sample-sigconf.pdf';

test('acmart display formulas keep their "=" and limits (newtx txmiaX, ∑ with a variation selector)', async () => {
  assert.ok(existsSync(SIGCONF), `${SIGCONF} is missing: install texlive-publishers-doc (scripts/test-deps.sh)`);
  const md = await fileMarkdown(SIGCONF, [3]);
  const display = md.split('\n').filter((l) => l.startsWith('$$'));
  assert.ok(display.includes('$$\\lim_{n\\to\\infty}x=0 \\tag{1}$$'), md);
  assert.ok(display.includes('$$\\sum_{i=0}^{\\infty}x+1$$'), md);
  assert.ok(
    display.some((l) => l.includes('=\\int_{0}^{\\pi+2}f')),
    md,
  );
  assert.ok(!/[\uFE00-\uFE0F]/.test(md), 'no variation selector left in the Markdown');
});
