/**
 * Issue 31 class 2, text the text layer lacks: headings set as pictures (an equity report's
 * "Back to growth", "Target price:"), a band's name as a picture on a festival poster, a
 * university's name drawn as vector outlines in its letterhead logo, and digits whose glyphs have
 * no Unicode mapping (Open Sans with old-style figures: "Version ." for "Version 1.1"). Real pages
 * (pdf.js's test PDFs and a TeX Live document installed by Debian), the real-world set's
 * person-checked tests, a real PaddleOCR session; each check fails with OCR off (the text layer
 * alone) and passes with it on. Pages with charts and maps drawn as pictures, full of labels, get
 * nothing added.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { plausibleLine, splitAtGaps } from '../../server/pipeline/missingText';
import { analyzePage, openPdf } from '../../server/pipeline/index';
import { documentToMarkdown } from '../../server/doctags/markdown';
import type { AnalyzeOptions } from '../../server/model/analysis';
import { runTest } from '../../eval/realworld/checks';
import { materializePages } from '../../eval/realworld/pages';
import { readTests, setDir, TESTS_FILE } from '../../eval/realworld/set';
import { corpusRoot } from '../../eval/corpus';
import { repoRoot } from '../../eval/repo';
import { corpusPath } from '../helpers/corpus';
import { options } from './analyze';

test('plausibleLine keeps words and numbers, not noise', () => {
  for (const t of ['Back to growth', 'FAITH NO MORE', 'Version 1.1', 'Fax Line: (408) 366-0743', 'Target price:'])
    assert.equal(plausibleLine(t), true, t);
  for (const t of ['牛4AAAN', '. . . .', 'Xqzkt', 'll', '|||', 'a-', 'IIIIIII', '~~//..'])
    assert.equal(plausibleLine(t), false, t);
  assert.equal(plausibleLine('北京大学', true), true, 'CJK on a page whose layer has CJK');
});

test('splitAtGaps splits a camel-case join where the outlines have a word gap, and nowhere else', () => {
  const w = { text: 'UniversiteitAntwerpen', bbox: { x0: 114, y0: 790, x1: 195, y1: 800 } };
  const parts = [
    { x0: 114, y0: 791, x1: 149, y1: 798 },
    { x0: 151, y0: 792, x1: 195, y1: 800 },
  ];
  assert.deepEqual(
    splitAtGaps(w, parts).map((p) => p.text),
    ['Universiteit', 'Antwerpen'],
  );
  // No gap in the outlines: the word stays whole (a name like "McDonald" is one word).
  assert.deepEqual(
    splitAtGaps(w, [{ x0: 114, y0: 791, x1: 195, y1: 800 }]).map((p) => p.text),
    ['UniversiteitAntwerpen'],
  );
  // A gap but no case change near it: no split.
  assert.deepEqual(
    splitAtGaps({ ...w, text: 'universiteitantwerpen' }, parts).map((p) => p.text),
    ['universiteitantwerpen'],
  );
});

const IDS = [
  'kreate-equity-p1-01',
  'kreate-equity-p1-02',
  'kreate-equity-p1-03',
  'kreate-equity-p1-04',
  'festival-poster-p1-02',
  'ua-letter-p1-01',
  'opensans-doc-p1-01',
  'opensans-doc-p1-02',
  'opensans-doc-p1-04',
];

async function pageMarkdown(file: string, extra: Partial<AnalyzeOptions>): Promise<{ md: string; warnings: string[] }> {
  const doc = await openPdf(file);
  try {
    const page = await analyzePage(doc, 1, options(extra));
    assert.equal(page.ocr, false, 'the page keeps its text layer');
    return { md: documentToMarkdown([page.items]), warnings: page.warnings };
  } finally {
    await doc.close();
  }
}

test('real pages: text drawn as pictures or outlines, and glyphs with no Unicode, are read by OCR with a warning; the layer alone misses them', async () => {
  const repo = repoRoot();
  const tests = readTests(join(setDir(repo), TESTS_FILE)).filter((t) => IDS.includes(t.id));
  assert.equal(tests.length, IDS.length);
  const dir = mkdtempSync(join(tmpdir(), 'folio-missing-'));
  try {
    const files = materializePages(tests, dir, corpusRoot(repo), setDir(repo));
    const keys = [...new Set(tests.map((t) => `${t.pdf}#${t.page}`))];
    const withOcr = new Map<string, string>();
    const layerOnly = new Map<string, string>();
    for (const key of keys) {
      const on = await pageMarkdown(files.get(key)!, { ocr: 'auto' });
      assert.ok(
        on.warnings.some((w) => /read by OCR where the page shows text|glyphs that have no text/.test(w)),
        `${key}: a warning names the lines read by OCR (${on.warnings.join(' | ')})`,
      );
      withOcr.set(key, on.md);
      layerOnly.set(key, (await pageMarkdown(files.get(key)!, { ocr: 'never' })).md);
    }
    const failedOn: string[] = [];
    const passedOff: string[] = [];
    for (const t of tests) {
      const key = `${t.pdf}#${t.page}`;
      const on = runTest(t, withOcr.get(key)!);
      if (!on.passed) failedOn.push(`${t.id}: ${on.why}`);
      if (runTest(t, layerOnly.get(key)!).passed) passedOff.push(t.id);
    }
    assert.deepEqual(failedOn, []);
    assert.deepEqual(passedOff, [], 'each check needs the OCR: the text layer alone fails it');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('pictures of a chart and a map, full of labels: nothing is added and the page reads as with OCR off', async () => {
  const file = corpusPath('docling/pdf/picture_classification.pdf');
  for (const pageNo of [1, 2]) {
    const read = async (ocr: AnalyzeOptions['ocr']) => {
      const doc = await openPdf(file);
      try {
        return await analyzePage(doc, pageNo, options({ ocr }));
      } finally {
        await doc.close();
      }
    };
    const on = await read('auto');
    const off = await read('never');
    assert.deepEqual(
      on.warnings.filter((w) => w.includes('OCR')),
      [],
      `page ${pageNo}`,
    );
    assert.deepEqual(
      on.items.map((i) => [i.cls, i.text]),
      off.items.map((i) => [i.cls, i.text]),
      `page ${pageNo}`,
    );
  }
});
