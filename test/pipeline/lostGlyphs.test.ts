/**
 * Issue 31: glyphs with no Unicode that are symbols, not letters. A questionnaire (Docling's
 * table_mislabeled_as_picture.pdf, re-embedded by PDFium) draws its 32 checkboxes with a Wingdings
 * subset whose character map sends them to U+0084; the lost-glyph OCR used to fill each with what
 * the recognizer made of the line (")", "s", "l": "legal aid cases ) They supervise"). Real PDFs
 * of the corpus, real pdf.js glyph outlines, a real PaddleOCR session for the page conversion.
 * The Open Sans old-style figures that the lost-glyph OCR exists for stay letters
 * (test/pipeline/missingText.test.ts checks they are still read back).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzePage, openPdf } from '../../server/pipeline/index';
import { readPage } from '../../server/pipeline/pageContent';
import { documentToMarkdown } from '../../server/doctags/markdown';
import { patchFromOcr } from '../../server/pipeline/textRepair';
import { isSymbolFont } from '../../server/pdf/lostGlyphs';
import { corpusPath } from '../helpers/corpus';
import { options } from './analyze';

const QUESTIONNAIRE = 'docling/pdf/table_mislabeled_as_picture.pdf';
/** Control characters: what a lost glyph leaves in the text layer. */
const CONTROL = /[\u0000-\u0008\u000e-\u001f\u007f-\u009f]/u;

async function rawPage(rel: string, pageNo: number) {
  const doc = await openPdf(corpusPath(rel));
  try {
    return await readPage(await doc.doc.getPage(pageNo), pageNo);
  } finally {
    await doc.close();
  }
}

test('a Wingdings checkbox with no Unicode is a box "☐" in the text layer, not a lost letter', async () => {
  const raw = await rawPage(QUESTIONNAIRE, 1);
  const text = raw.content.spans.map((s) => s.text).join('\n');
  assert.equal(raw.lostGlyphs, 0, 'no lost letters: the page needs no OCR for them');
  assert.doesNotMatch(text, CONTROL);
  // The page shows 32 checkboxes before answers (16 in each column) and 14 in the table of
  // question 28 (two a row, set in AllumiStd-DingbatsTwo, whose map calls them "*").
  assert.equal([...text].filter((c) => c === '☐').length, 46);
  // The table's seven round bullets: Wingdings glyphs its map calls "y" (Docling prints "y").
  assert.equal([...text].filter((c) => c === '•').length, 7);
  assert.equal(raw.content.spans.filter((s) => s.text.trim() === 'y').length, 0);
});

test('Open Sans old-style figures with no Unicode stay lost letters (read back by OCR), not symbols', async () => {
  const raw = await rawPage('pdfjs-test-pdfs/issue10640.pdf', 1);
  assert.ok(raw.lostGlyphs > 0, `lost letters counted (${raw.lostGlyphs})`);
  assert.equal(raw.lostSymbols.size, 0);
  assert.doesNotMatch(raw.content.spans.map((s) => s.text).join(''), /[☐■▪•●○▶◀▲▼]/u);
});

test("a Redbook's triangle bullet with no Unicode (IBM BookMaster) is a symbol by its outline", async () => {
  const raw = await rawPage('docling/pdf/redp5110_sampled.pdf', 8);
  const text = raw.content.spans.map((s) => s.text).join('\n');
  // Seven bullets: three before the CL commands ("▶ Work Function Usage (WRKFCNUSG)") and four
  // in Table 2-1 ("Usage setting: ▶ ALLOWED: … ▶ DENIED: …").
  assert.equal([...text].filter((c) => c === '▶').length, 7);
  assert.doesNotMatch(text, CONTROL);
});

test('the questionnaire converts with its checkboxes as "☐" and no OCR letter in their place', async () => {
  const doc = await openPdf(corpusPath(QUESTIONNAIRE));
  try {
    const page = await analyzePage(doc, 1, options({ ocr: 'auto' }));
    const md = documentToMarkdown([page.items]);
    assert.equal(page.ocr, false, 'the page keeps its text layer');
    assert.deepEqual(
      page.warnings.filter((w) => /OCR/.test(w)),
      [],
      'nothing is read by OCR on this page',
    );
    assert.doesNotMatch(md, CONTROL);
    for (const answer of [
      'They work in parallel to State funded private practitioners',
      'They supervise, coach or mentor private practitioners',
      'Yes, at regional (district) level',
      'No, it is up to the discretion of each university',
      'They can conduct mediation',
    ])
      assert.match(md, new RegExp(`☐ ${answer.replace(/[()]/g, '\\$&')}`), answer);
    // What the OCR fill made of the checkboxes before: a letter or ")" standing alone before an answer.
    assert.doesNotMatch(md, / [)a-z] (They|Yes|No|Don|Other)\b/);
    // The table's round bullets are bullets, not a "y" line before each row.
    assert.match(md, /^- Persons with disabilities$/m);
    assert.doesNotMatch(md, /^y$/m);
  } finally {
    await doc.close();
  }
});

test('patchFromOcr: a placeholder the OCR reading has nothing for is dropped, not given the letter before it', () => {
  assert.equal(
    patchFromOcr('legal aid cases \u0084 They supervise', 'legal aid cases They supervise'),
    'legal aid cases  They supervise',
  );
  // Where the reading has a character for it, the placeholder still takes it ("Version 1.1").
  assert.equal(patchFromOcr('Version \u0081.\u0081', 'Version 1.1'), 'Version 1.1');
  assert.equal(patchFromOcr('November \u0083, \u0082\u0080\u0081\u0081', 'November 3, 2011'), 'November 3, 2011');
});

test('symbol fonts are told by name: dingbat, pi and math symbol fonts; text fonts are not', () => {
  for (const f of [
    'XXQNYR+Wingdings',
    'ZapfDingbats',
    'SymbolMT',
    'EuropeanPi-Three',
    'DUGPCC+MSAM10',
    'KZFRJM+CMEX10',
    'VVWJHJ+txsy',
  ])
    assert.equal(isSymbolFont(f), true, f);
  for (const f of [
    'KUEKMM+OpenSans',
    'EMMOLK+Cambria',
    'BookMaster',
    'AdobeCorpID-MyriadRg',
    'OHZYSY+rtxmi',
    'Calibri',
    'Pictor',
    'Epic-Bold',
  ])
    assert.equal(isSymbolFont(f), false, f);
});
