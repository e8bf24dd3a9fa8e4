/**
 * Issue 34 / E2 and E5 (the formula half): the preview's Markdown renderer on hostile `.md` text,
 * in a real Chromium (the webview's engine) with the real bundle of media/preview/markdown.ts,
 * KaTeX's CSS and media/preview.css. At ca9d090 320 KB of `[a](` took 27 s (quadratic link
 * regex), a 200 KB formula 20–26 s in KaTeX, formulas were typeset in a hidden Markdown pane, and
 * `\rule{100000em}` drew a 100000em box. Times are compared with a linear baseline measured in
 * the same page: rendering the same amount of ordinary prose.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import { repoRoot } from '../helpers/corpus';

const CHROMIUM = process.env.FOLIO_E2E_CHROMIUM ?? '/usr/bin/chromium';
let browser: Browser;
let page: Page;

before(async () => {
  assert.ok(existsSync(CHROMIUM), `Chromium is needed at ${CHROMIUM} (scripts/test-deps.sh installs it)`);
  const root = repoRoot();
  // Loaded at run time: esbuild's API cannot be bundled into this test.
  const esbuild = createRequire(join(root, 'package.json'))('esbuild') as typeof import('esbuild');
  const bundle = await esbuild.build({
    stdin: {
      contents: `import { renderMarkdown } from './media/preview/markdown';
        (window as any).folioRender = (md: string) => renderMarkdown(md, { picture: () => document.createElement('div') });`,
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    format: 'iife',
    write: false,
    logLevel: 'error',
  });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  page = await browser.newPage({ viewport: { width: 900, height: 700 } });
  await page.setContent(
    '<!doctype html><html><body><div id="folio-root"><div id="shown" class="page-md"></div>' +
      '<div id="hidden" class="page-md" style="display:none"></div></div></body></html>',
  );
  await page.addStyleTag({ content: readFileSync(join(root, 'node_modules/katex/dist/katex.min.css'), 'utf8') });
  await page.addStyleTag({ content: readFileSync(join(root, 'media/preview.css'), 'utf8') });
  await page.addScriptTag({ content: bundle.outputFiles[0]!.text });
});

after(async () => {
  await browser?.close();
});

/** Renders `md` into #shown (or #hidden) in the page; returns the milliseconds it took. */
async function render(md: string, where: 'shown' | 'hidden' = 'shown'): Promise<number> {
  return page.evaluate(
    ([text, id]) => {
      const host = document.getElementById(id)!;
      host.replaceChildren();
      const t0 = performance.now();
      host.append((window as unknown as { folioRender(m: string): Node }).folioRender(text));
      // Layout too: what the user waits for.
      void host.getBoundingClientRect();
      return performance.now() - t0;
    },
    [md, where] as const,
  );
}

/** Ordinary prose of `chars` characters: the linear baseline. */
const prose = (chars: number) =>
  'The results are shown in the table below, with *some* emphasis. '.repeat(Math.ceil(chars / 64)).slice(0, chars);

test('E2: 320 KB of "[a](" renders in time linear in its size (was 27 s)', { timeout: 120_000 }, async (t) => {
  const hostile = '[a]('.repeat(80_000);
  const baseline = await render(prose(hostile.length));
  const ms = await render(hostile);
  t.diagnostic(
    `"[a](" x 80,000: ${ms.toFixed(0)} ms; ${hostile.length} characters of prose: ${baseline.toFixed(0)} ms`,
  );
  assert.ok(ms < 20 * baseline + 500, `${ms.toFixed(0)} ms, prose of the same size ${baseline.toFixed(0)} ms`);
  // Cut at 64 KB, and it says so.
  const note = await page.locator('#shown .md-truncated').textContent();
  assert.match(note ?? '', /truncated: \d+ more characters/);
});

test('E2: a 200 KB formula is shown as TeX, not typeset (was 20–26 s in KaTeX)', { timeout: 120_000 }, async (t) => {
  const hostile = '$$' + 'a+'.repeat(100_000) + 'a$$';
  const baseline = await render(prose(hostile.length));
  const ms = await render(hostile);
  t.diagnostic(`200 KB formula: ${ms.toFixed(0)} ms; prose: ${baseline.toFixed(0)} ms`);
  assert.ok(ms < 20 * baseline + 500, `${ms.toFixed(0)} ms`);
  assert.equal(await page.locator('#shown .katex').count(), 0);
  assert.equal(await page.locator('#shown .md-formula-raw code').count(), 1);
  // 50,000 inline formulas: the block's budget typesets the first ones, the others stay TeX.
  const many = '$x$ '.repeat(50_000);
  const msMany = await render(many);
  t.diagnostic(`50,000 inline formulas: ${msMany.toFixed(0)} ms`);
  await page.waitForFunction(() => document.querySelectorAll('#shown .katex').length >= 100);
  const typeset = await page.locator('#shown .katex').count();
  assert.ok(typeset <= 200, `${typeset} typeset in one block`);
});

test(
  'E2: formulas in the hidden Markdown pane are not typeset until it is shown and on screen',
  { timeout: 120_000 },
  async () => {
    // A page of formulas far below the screen (after 60 KB of text) is not typeset either.
    await render(prose(60 * 1024) + '\n\n$y^3$ and $z_4$');
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    assert.equal(await page.locator('#shown .katex').count(), 0, 'typeset off screen');
    await page.locator('#shown .md-formula-inline').last().scrollIntoViewIfNeeded();
    await page.waitForFunction(() => document.querySelectorAll('#shown .katex').length === 2);
    await page.evaluate(() => {
      document.getElementById('shown')!.replaceChildren();
      window.scrollTo(0, 0);
    });
    await render('Some $x^2$ and $\\frac{a}{b}$ text.\n\n$$\\sum_{i=1}^n i$$', 'hidden');
    // Give an observer every chance to fire (two frames), then check nothing was typeset.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    assert.equal(await page.locator('#hidden .katex').count(), 0, 'typeset while hidden');
    assert.match((await page.locator('#hidden').textContent()) ?? '', /\\frac\{a\}\{b\}/, 'the TeX is there as text');
    await page.evaluate(() => (document.getElementById('hidden')!.style.display = 'block'));
    await page.waitForFunction(() => document.querySelectorAll('#hidden .katex').length === 3);
    await page.evaluate(() => (document.getElementById('hidden')!.style.display = 'none'));
  },
);

test('E5: \\rule{100000em} and \\kern-10000em stay within their formula', { timeout: 120_000 }, async () => {
  await render('Before $\\rule{100000em}{100000em}$ and $a\\kern-10000em b$ after.\n\n$$\\rule{100000em}{1em}$$');
  await page.waitForFunction(() => document.querySelectorAll('#shown .katex').length === 3);
  const boxes = await page.evaluate(() => {
    const em = parseFloat(getComputedStyle(document.getElementById('shown')!).fontSize);
    const rects = [...document.querySelectorAll('#shown .md-formula, #shown .md-formula-inline')].map((h) => {
      const r = h.getBoundingClientRect();
      return { w: r.width, h: r.height };
    });
    // The largest box any element of a formula declares (KaTeX's maxSize caps \rule at 20em).
    let largest = 0;
    for (const e of document.querySelectorAll<HTMLElement>('#shown .katex *')) {
      for (const v of [e.style.height, e.style.width, e.style.borderRightWidth, e.style.borderTopWidth])
        if (v.endsWith('em')) largest = Math.max(largest, Math.abs(parseFloat(v)));
    }
    return { em, rects, largest, view: document.documentElement.clientWidth };
  });
  assert.ok(boxes.largest <= 20, `an element of ${boxes.largest}em`);
  for (const r of boxes.rects) {
    assert.ok(r.w <= boxes.view, `a formula ${r.w}px wide in a ${boxes.view}px view`);
    assert.ok(r.h <= 21 * boxes.em * 1.3, `a formula ${r.h}px high`);
  }
});
