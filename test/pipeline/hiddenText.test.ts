/**
 * Issue 39, N9: text a reader of the page cannot see is left out of the Markdown and counted in
 * the page's warnings; `keepHiddenText` (`--keep-hidden-text`) keeps it. The reproduction is the
 * audit's hand-written page (white `1 1 1 rg`, a white box drawn over text, `0 0 1 1 re W n`,
 * `1 Tz`, mode 3, plus near-white, `ca 0` and box-coloured text), which before this change
 * came out with every one of those lines but the mode-3 one. The real pages are typeset by
 * XeLaTeX (`\color{white}`, `\colorbox`, fontspec's FakeStretch, TikZ clips, a picture drawn
 * over text) and printed by Chromium (white text, `position: absolute` covers, `transform:
 * scaleX`, shaded table headers), each "HIDDEN" line beside a look-alike that must stay ("SEEN":
 * light grey, tinted boxes, white on dark, condensed type, text inside its clip, text over a
 * picture drawn before it). test/fixtures/hidden/make.sh makes all three.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { analyzePage, openPdf } from '../../server/pipeline/index';
import { readPage } from '../../server/pipeline/pageContent';
import { corpusPath } from '../helpers/corpus';
import type { PageAnalysis } from '../../server/model/analysis';
import { analyzeCorpusPdf, bodyText, options } from './analyze';

const FIXTURES = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'hidden');

async function page1(name: string, keepHiddenText = false): Promise<PageAnalysis> {
  const doc = await openPdf(join(FIXTURES, name));
  try {
    return await analyzePage(doc, 1, options({ keepHiddenText }));
  } finally {
    await doc.close();
  }
}

/** The first words of each line of the page that starts with `prefix` ("SEEN body", "HIDDEN white"). */
function labels(text: string, prefix: string): string[] {
  return [...text.matchAll(new RegExp(`${prefix} [a-z0-9 ]+`, 'gi'))].map((m) => m[0].trim());
}

test('N9 reproduction: the audit page loses its eight hidden lines, keeps its look-alikes, and says what was left out', async () => {
  const hidden = ['WHITE:', 'COVERED:', 'CLIPPED:', 'SQUEEZED:', 'MODE3:', 'NEARWHITE:', 'TRANSPARENT:', 'BOXCOLOUR:'];
  const seen = ['SEEN:', 'SEEN GREY:', 'SEEN BOX:', 'SEEN DARK:', 'SEEN TZ80:', 'SEEN TZ25:', 'SEEN CLIP:'];
  const a = await page1('n9-raw.pdf');
  const text = bodyText([a]);
  for (const h of hidden) assert.ok(!text.includes(h), `${h} left out:\n${text}`);
  for (const s of seen) assert.ok(text.includes(s), `${s} kept:\n${text}`);
  assert.ok(!/IGNORE|pwned/i.test(text), text);
  assert.deepEqual(
    a.warnings.filter((w) => w.includes('hidden text')),
    [
      '8 hidden text runs left out (a reader of the page does not see them): 1 drawn invisibly (text rendering mode 3 or 7), ' +
        '1 fully transparent, 1 squeezed under 20 % of their width (Tz), 1 outside the clipping path, 2 white on white, ' +
        '1 in the colour of the box beneath them, 1 under an opaque shape or image drawn after them; --keep-hidden-text keeps them',
    ],
  );
  // Kept on request: every line, and no warning.
  const kept = await page1('n9-raw.pdf', true);
  const all = bodyText([kept]);
  for (const h of [...hidden, ...seen]) assert.ok(all.includes(h), `${h} kept with keepHiddenText:\n${all}`);
  assert.equal(kept.warnings.filter((w) => w.includes('hidden text')).length, 0);
});

test('XeLaTeX page: white, box-coloured, squeezed, covered, clipped and under-a-picture text left out; every look-alike stays', async () => {
  const a = await page1('hidden-tex.pdf');
  const text = bodyText([a]);
  assert.deepEqual(labels(text, 'HIDDEN'), [], text);
  assert.deepEqual(
    labels(text, 'SEEN').map((l) => l.split(' ').slice(0, 3).join(' ')),
    [
      'SEEN body',
      'SEEN light grey',
      'SEEN shaded header',
      'SEEN tinted callout',
      'SEEN white on',
      'SEEN condensed',
      'SEEN inside clip',
      'SEEN over a',
      'SEEN closing',
    ],
  );
  const w = a.warnings.find((x) => x.includes('hidden text')) ?? '';
  assert.match(w, /^6 hidden text runs left out/);
  assert.match(w, /1 white on white/);
  assert.match(w, /1 in the colour of the box beneath them/);
  assert.match(w, /1 squeezed/);
  assert.match(w, /1 outside the clipping path/);
  assert.match(w, /2 under an opaque shape or image drawn after them/);
  const kept = bodyText([await page1('hidden-tex.pdf', true)]);
  assert.equal(labels(kept, 'HIDDEN').length, 6, kept);
});

test('Chromium page: white, box-coloured, covered and scaleX(0.08) text left out; shaded header, callout, white on dark, scaleX(0.8) and text over a picture stay', async () => {
  const a = await page1('hidden-chromium.pdf');
  const text = bodyText([a]);
  assert.deepEqual(labels(text, 'HIDDEN'), [], text);
  for (const s of [
    'SEEN body',
    'SEEN light grey',
    'SEEN shaded header',
    'SEEN tinted callout',
    'SEEN white on dark',
    'SEEN condensed',
    'SEEN inside clip',
    'SEEN over a picture drawn first',
    'SEEN closing',
  ])
    assert.ok(text.includes(s), `${s} kept:\n${text}`);
  // Chromium leaves the overflow-clipped paragraph out of the PDF itself; the white one wraps to two lines.
  const w = a.warnings.find((x) => x.includes('hidden text')) ?? '';
  assert.match(w, /^5 hidden text runs left out/);
  assert.match(w, /2 white on white/);
  const kept = bodyText([await page1('hidden-chromium.pdf', true)]);
  assert.deepEqual(
    labels(kept, 'HIDDEN')
      .map((l) => l.split(' ').slice(0, 2).join(' '))
      .sort(),
    ['HIDDEN box', 'HIDDEN covered', 'HIDDEN squeezed', 'HIDDEN white'],
  );
});

test('corpus pages: white text on a soft-masked orange card stays; a page number under a picture is left out', async () => {
  // pdf.js's issue18032.pdf: "BUD Budapest / Liszt Ferenc" in white on an orange card that a
  // transparency group paints; the rule must not call it white on white.
  const doc = await openPdf(corpusPath('pdfjs-test-pdfs/issue18032.pdf'));
  try {
    const page = await doc.doc.getPage(1);
    const raw = await readPage(page, 1);
    assert.match(raw.content.spans.map((x) => x.text).join(' '), /BUD\s+Budapest\s+Liszt Ferenc/);
    assert.equal(raw.hiddenText, undefined);
    page.cleanup();
  } finally {
    await doc.close();
  }
  // docling's right_to_left_02.pdf: the page number "11" lies under the dark cover picture drawn after it.
  const [rtl] = await analyzeCorpusPdf('docling/pdf/right_to_left_02.pdf', {}, [1]);
  assert.ok(
    rtl.warnings.includes(
      '1 hidden text run left out (a reader of the page does not see them): 1 under an opaque shape or image drawn after them; --keep-hidden-text keeps them',
    ),
    rtl.warnings.join('\n'),
  );
});
