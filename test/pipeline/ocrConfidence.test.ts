/**
 * Handwriting is beyond the pipeline's OCR (issue 23 class 11): a page the recognizer itself
 * doubts gets a warning that says so and points to the VLM engine; printed scans do not.
 *
 * The handwritten page: a note set in the Breip handwriting font (Debian fonts-breip), printed by
 * Chromium and scanned at 200 dpi (pdftoppm, JPEG, an image-only PDF). The same note in a print
 * typeface, scanned the same way, is the control; real scans from the corpus must stay quiet.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { analyzePage, openPdf } from '../../server/pipeline/index';
import { lowOcrConfidenceWarning, LOW_OCR_SCORE } from '../../server/pipeline/ocrPage';
import type { PageAnalysis } from '../../server/model/analysis';
import { imagePdf } from '../../eval/realworld/pages';
import { CHROMIUM } from '../e2e/harness';
import { corpusPath } from '../helpers/corpus';
import { options } from './analyze';

const NOTE =
  'Dear Anna, thank you for the letter and the photographs of the garden. The roses came out well this year, ' +
  'better than we hoped after the cold spring. I will come by on Thursday afternoon with the books you asked for, ' +
  'and we can talk about the trip in August. Please tell your mother that the recipe worked. With love, Peter';

let dir: string;
const scans: Record<'hand' | 'print', string> = { hand: '', print: '' };

/** The note in `font`, printed by Chromium, rasterised at 200 dpi into an image-only PDF. */
async function scannedNote(font: string, name: string): Promise<string> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu'],
  });
  const printed = join(dir, `${name}.printed.pdf`);
  try {
    const page = await browser.newPage();
    await page.setContent(
      `<!doctype html><html><body style="font-family:'${font}';font-size:17pt;line-height:1.6;margin:0"><p>${NOTE}</p><p>${NOTE}</p></body></html>`,
    );
    await page.evaluate(() => document.fonts.ready);
    writeFileSync(
      printed,
      await page.pdf({ format: 'A4', margin: { top: '1in', bottom: '1in', left: '1in', right: '1in' } }),
    );
  } finally {
    await browser.close();
  }
  const jpg = execFileSync('pdftoppm', ['-r', '200', '-gray', '-jpeg', '-singlefile', printed], {
    maxBuffer: 64 << 20,
  });
  const out = join(dir, `${name}.scan.pdf`);
  writeFileSync(out, imagePdf(jpg, 200));
  return out;
}

async function analyze(path: string): Promise<PageAnalysis[]> {
  const doc = await openPdf(path);
  try {
    const pages: PageAnalysis[] = [];
    for (let p = 1; p <= doc.numPages; p++) pages.push(await analyzePage(doc, p, options({ ocr: 'auto' })));
    return pages;
  } finally {
    await doc.close();
  }
}

const doubts = (pages: PageAnalysis[]) => pages.flatMap((p) => p.warnings).filter((w) => /OCR is unsure/.test(w));

before(async () => {
  const fonts = execFileSync('fc-list', [':', 'family'], { encoding: 'utf8' });
  assert.match(
    fonts,
    /Breip/,
    'the Breip handwriting font is missing: install fonts-breip (scripts/test-deps.sh does)',
  );
  dir = mkdtempSync(join(tmpdir(), 'folio-ocrconf-'));
  scans.hand = await scannedNote('Breip', 'hand');
  scans.print = await scannedNote('Nimbus Roman', 'print');
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('a handwritten note gets the low-confidence warning, naming the VLM engine', async () => {
  const pages = await analyze(scans.hand);
  assert.equal(pages[0]!.ocr, true);
  const w = doubts(pages);
  assert.equal(w.length, 1, pages[0]!.warnings.join(' | '));
  assert.match(w[0]!, /handwriting/);
  assert.match(w[0]!, /--engine vlm/);
  const mean = Number(/mean confidence (\d\.\d+)/.exec(w[0]!)?.[1]);
  assert.ok(mean < LOW_OCR_SCORE, `mean ${mean}`);
});

test('the same note in print, scanned the same way, reads without the warning', async () => {
  const pages = await analyze(scans.print);
  assert.equal(pages[0]!.ocr, true);
  assert.deepEqual(doubts(pages), [], pages[0]!.warnings.join(' | '));
  assert.match(pages[0]!.items.map((i) => i.text).join(' '), /thank you for the letter/);
});

test('real printed scans from the corpus get no warning', async () => {
  for (const rel of [
    'docling/ocr/ocr_test.pdf',
    'docling/ocr/sample_with_rotation_mismatch.pdf',
    'opendataloader-samples/chinese_scan.pdf',
  ]) {
    const pages = await analyze(corpusPath(rel));
    assert.ok(
      pages.every((p) => p.ocr),
      `${rel} went through OCR`,
    );
    assert.deepEqual(doubts(pages), [], rel);
  }
});

test('the rule: too few lines say nothing; a low mean or many dropped lines warn', () => {
  assert.equal(lowOcrConfidenceWarning({ read: 2, dropped: 2, meanScore: 0.2 }), undefined);
  assert.equal(lowOcrConfidenceWarning({ read: 40, dropped: 1, meanScore: 0.97 }), undefined);
  assert.match(lowOcrConfidenceWarning({ read: 40, dropped: 0, meanScore: 0.86 }) ?? '', /mean confidence 0\.86/);
  assert.match(lowOcrConfidenceWarning({ read: 40, dropped: 20, meanScore: 0.95 }) ?? '', /20 of 40 lines/);
});
