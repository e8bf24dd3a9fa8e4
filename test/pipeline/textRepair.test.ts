/**
 * Issue 31 class 2, text the text layer lies about: lines whose decoded characters are not
 * plausible are read again by OCR from the rendered page, and the page's warnings say so. Real
 * pages from the shared corpus (pdf.js's test PDFs): a school newsletter printed from Word whose
 * font map turns spaces into "#" and hyphens into "=" ("1101#Strayer#Drive#*#San#Jose"), and a
 * page Firefox printed whose parentheses and colons decode to U+FFFD ("�IA�"). The page checks
 * are the real-world set's person-checked tests; a real PaddleOCR session reads the crops.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { implausibleText, patchFromOcr, patchGlued } from '../../server/pipeline/textRepair';
import { analyzePage, openPdf } from '../../server/pipeline/index';
import { documentToMarkdown } from '../../server/doctags/markdown';
import { runTest } from '../../eval/realworld/checks';
import { materializePages } from '../../eval/realworld/pages';
import { readTests, setDir, TESTS_FILE } from '../../eval/realworld/set';
import { corpusRoot } from '../../eval/corpus';
import { repoRoot } from '../../eval/repo';
import { options } from './analyze';

test('implausibleText: glued words, mixed scripts and bad characters; ordinary text passes', () => {
  assert.equal(implausibleText('1101#Strayer#Drive#*#San#Jose,#CA##95129#*#(408)#253=2850#'), 'glued');
  assert.equal(implausibleText('CoŶstƌuĐtoƌ Ŷow ƌeƋuiƌes a ǀalue'), 'replace');
  assert.equal(implausibleText('une technologie d’intelligence artificielle �IA� pour analyser'), 'patch');
  for (const t of [
    'Issue #12 was fixed in build #3.',
    'a = b + c, x == y',
    'Dvořák and Łódź; Ðorđe Balašević',
    'Le vérificateur d’avis utilise une technologie',
    'C#, F# and #include',
    'x ≤ y ≥ z =\ue020 w',
    '1 0 0\ue001 0 1 0 0 0 1',
  ])
    assert.equal(implausibleText(t), undefined, t);
});

test('patchFromOcr replaces only the bad characters, from the aligned OCR reading', () => {
  assert.equal(
    patchFromOcr(
      'artificielle �IA� pour analyser les avis laissés',
      'artificielle (IA) pour analyser les avis laisses',
    ),
    'artificielle (IA) pour analyser les avis laissés',
  );
  assert.equal(patchFromOcr('A et B � Avis fiables.', 'A et B : Avis fiables.'), 'A et B : Avis fiables.');
  // The OCR dictionary's CJK characters never fill a bad character ("《" read for "≪").
  assert.equal(
    patchFromOcr('r0 \ue01c r0 from the crystal', 'r0 《 r0 from the crystal'),
    'r0 \ue01c r0 from the crystal',
  );
});

test('patchGlued puts a space or the OCR punctuation where the font map put "#" or "="', () => {
  // The OCR model read the line without the space in "Fax Line:" (the real reading of this crop).
  assert.equal(patchGlued('Fax#Line:#(408)#366=0743#', 'FaxLine:(408) 366-0743'), 'Fax Line: (408) 366-0743');
  assert.equal(
    patchGlued('1101#Strayer#Drive#*#San#Jose,#CA##95129', '1101 Strayer Drive * San Jose, CA 95129'),
    '1101 Strayer Drive * San Jose, CA 95129',
  );
});

const IDS = [
  'dragon-newsletter-p1-01',
  'dragon-newsletter-p1-02',
  'dragon-newsletter-p1-03',
  'moz-support-fr-p1-05',
  'moz-support-fr-p1-06',
  'moz-support-fr-p1-07',
  // Look-alikes on the same pages that the layer reads right and that stay as they are.
  'dragon-newsletter-p1-07',
  'moz-support-fr-p1-11',
];

test('real pages: a font map that sends spaces to "#" and characters decoded to U+FFFD are read again by OCR, with a warning', async () => {
  const repo = repoRoot();
  const tests = readTests(join(setDir(repo), TESTS_FILE)).filter((t) => IDS.includes(t.id));
  assert.equal(tests.length, IDS.length);
  const dir = mkdtempSync(join(tmpdir(), 'folio-repair-'));
  try {
    const files = materializePages(tests, dir, corpusRoot(repo), setDir(repo));
    const failed: string[] = [];
    const warned: string[] = [];
    const markdown = new Map<string, string>();
    for (const t of tests) {
      const key = `${t.pdf}#${t.page}`;
      if (!markdown.has(key)) {
        const doc = await openPdf(files.get(key)!);
        try {
          const page = await analyzePage(doc, 1, options({ ocr: 'auto' }));
          assert.equal(page.ocr, false, 'the page keeps its text layer');
          warned.push(...page.warnings.filter((w) => w.includes('characters are not plausible')));
          markdown.set(key, documentToMarkdown([page.items]));
        } finally {
          await doc.close();
        }
      }
      const r = runTest(t, markdown.get(key)!);
      if (!r.passed) failed.push(`${t.id}: ${r.why}`);
    }
    assert.deepEqual(failed, []);
    assert.equal(warned.length, 2, 'one warning on each page');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
