/**
 * Issue 34 / E2, E5: the bounds of the preview's Markdown renderer that run without a browser
 * (media/preview/markdownLimits.ts); the renderer itself is tested in Chromium
 * (markdownBrowser.test.ts). Times are compared with the same pattern on ordinary prose of the
 * same length, measured in the same run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import katex from 'katex';
import {
  capBlock,
  FormulaBudget,
  INLINE_PATTERN,
  katexOptions,
  MARKDOWN_LIMITS,
} from '../../media/preview/markdownLimits';

function scan(text: string): { ms: number; matches: number } {
  const re = new RegExp(INLINE_PATTERN);
  const t0 = performance.now();
  let matches = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) matches++;
  return { ms: performance.now() - t0, matches };
}

test('E2: the inline pattern is linear on the shapes that were quadratic', (t) => {
  const n = MARKDOWN_LIMITS.blockChars;
  const prose = 'The results are in [the table](#t) with *some* `code` and $x$ here. '.repeat(n / 64).slice(0, n);
  scan(prose); // warm-up
  const baseline = Math.max(scan(prose).ms, 1);
  const shapes: Record<string, string> = {
    '[a](': '[a]('.repeat(n / 4), // 27 s at 320 KB before
    '[': '['.repeat(n), // 11 s at 64 KB before
    backticks: '`'.repeat(n), // 9 s at 64 KB with an unbounded backtick run
    '[a](b': '[a](b'.repeat(n / 5),
    $a: '$a'.repeat(n / 2),
    '**a': '**a'.repeat(n / 3),
    ' _a': ' _a'.repeat(n / 3),
    mixed: '*_`$[(]'.repeat(n / 7),
  };
  for (const [name, text] of Object.entries(shapes)) {
    const { ms } = scan(text);
    t.diagnostic(`${name}: ${ms.toFixed(1)} ms (prose ${baseline.toFixed(1)} ms)`);
    assert.ok(ms < 50 * baseline + 50, `${name}: ${ms.toFixed(0)} ms for ${text.length} characters`);
  }
  // Still Markdown: links, code, emphasis and formulas are found.
  const re = new RegExp(INLINE_PATTERN);
  const found = [...'see [Folio](https://x.example/a_b) and `c` and **b** and $x^2$'.matchAll(re)].map((m) => m[0]);
  assert.deepEqual(found, ['[Folio](https://x.example/a_b)', '`c`', '**b**', '$x^2$']);
});

test('E2: a block is cut at 64 KB, at a line end when one is near, never inside a character', () => {
  const lines = Array.from({ length: 5000 }, (_, i) => `line ${i} of the block`).join('\n');
  const cut = capBlock(lines);
  assert.ok(cut.text.length <= MARKDOWN_LIMITS.blockChars);
  assert.ok(lines.startsWith(cut.text) && lines[cut.text.length] === '\n');
  assert.equal(cut.omitted, lines.length - cut.text.length);
  const emoji = '😀'.repeat(MARKDOWN_LIMITS.blockChars);
  const e = capBlock(emoji);
  assert.equal(e.text.length % 2, 0, 'no half surrogate pair');
  assert.deepEqual(capBlock('short'), { text: 'short', omitted: 0 });
});

test('E2: a block typesets at most 200 formulas and 8,000 characters, none over 2,000', () => {
  const b = new FormulaBudget();
  assert.equal(b.take('a+'.repeat(100_000)), false, 'a 200 KB formula is not typeset');
  let taken = 0;
  for (let i = 0; i < 50_000; i++) if (b.take('x')) taken++;
  assert.equal(taken, 200);
  const c = new FormulaBudget();
  const f = 'a+'.repeat(999) + 'a';
  assert.deepEqual([c.take(f), c.take(f), c.take(f), c.take(f), c.take(f)], [true, true, true, true, false]);
});

test('E5: KaTeX sizes are capped: \\rule{100000em} is drawn at most 20em', () => {
  const html = katex.renderToString('\\rule{100000em}{100000em}', katexOptions(false));
  const sizes = [...html.matchAll(/(?:height|width|border-right-width|border-top-width):\s*([\d.]+)em/g)].map((m) =>
    Number(m[1]),
  );
  assert.ok(sizes.length > 0, html);
  assert.ok(Math.max(...sizes) <= MARKDOWN_LIMITS.maxSizeEm, html);
  // Macro bombs stop at maxExpand (shown as an error, not hung).
  const bomb = katex.renderToString('\\def\\a{\\a\\a}\\a', katexOptions(true));
  assert.match(bomb, /katex-error|Too many expansions/);
});
