/**
 * Issue 31 class 2, text the text layer lacks: headings set as pictures (an equity report's
 * "Back to growth", "Target price:"), a band's name as a picture on a festival poster, a
 * university's name drawn as vector outlines in its letterhead logo, and digits whose glyphs have
 * no Unicode mapping (Open Sans with old-style figures: "Version ." for "Version 1.1"). Real pages
 * (pdf.js's test PDFs and a TeX Live document installed by Debian), the real-world set's
 * person-checked tests, a real PaddleOCR session; each check fails with OCR off (the text layer
 * alone) and passes with it on. Pages with charts and maps drawn as pictures, full of labels, get
 * nothing added. A banner whose word has a mirrored reflection is read upright, as the page reads.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { plausibleLine, readsUpright, splitAtGaps } from '../../server/pipeline/missingText';
import { analyzePage, openPdf, OCR_SCALE } from '../../server/pipeline/index';
import { documentToMarkdown } from '../../server/doctags/markdown';
import type { AnalyzeOptions } from '../../server/model/analysis';
import { runTest } from '../../eval/realworld/checks';
import { materializePages } from '../../eval/realworld/pages';
import { readTests, setDir, TESTS_FILE } from '../../eval/realworld/set';
import { corpusRoot } from '../../eval/corpus';
import { repoRoot } from '../../eval/repo';
import { corpusPath } from '../helpers/corpus';
import { options } from './analyze';
import { readPage } from '../../server/pipeline/pageContent';
import { renderPage } from '../../server/pdf/render';
import { recognize } from '../../server/pipeline/ocrBridge';
import { cropRgba } from '../../server/pipeline/crop';
import { withPageFile } from '../layout/pageOfTest';

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
  // A banner picture whose word has a mirrored reflection under it: read upright, as the page's
  // text layer reads (the recognizer's own 180° guess read it upside down, as nothing).
  'foersom-form-p1-01',
  // The paragraph under the LaTeX logo reads on ("Type 1 versions"): the lowered "E" stays in
  // its line, the old-style "1" is read by OCR.
  'opensans-doc-p1-03',
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

test('readsUpright: a page whose text mostly runs unturned reads upright; a page of turned text does not', () => {
  const span = (text: string) => ({
    text,
    bbox: { x0: 0, y0: 0, x1: 10, y1: 10 },
    fontSize: 10,
    fontName: 'f',
    monospace: false,
  });
  const spans = [span('A heading over the page'), span('body text of the page, long'), span('12')];
  assert.equal(readsUpright(spans, [0, 0, 0]), true);
  assert.equal(readsUpright(spans, [0, 0, 90]), true, 'a short turned label in a margin');
  assert.equal(readsUpright(spans, [90, 90, 0]), false, 'a page set sideways');
  assert.equal(readsUpright(spans, [180, 180, 180]), false, 'a page upside down');
  assert.equal(readsUpright([], []), false, 'no text: no evidence');
});

test('the banner of a form: the recognizer alone turns it upside down and reads nothing; upright, it reads the word', async () => {
  await withPageFile('corpus/pdfjs-test-pdfs/bug1883609.pdf', 1, async (file) => {
    const doc = await openPdf(file);
    try {
      const page = await doc.doc.getPage(1);
      const raw = await readPage(page, 1);
      assert.equal(raw.textless.length, 1, 'one picture without text: the banner');
      assert.equal(readsUpright(raw.content.spans, raw.angles), true);
      const scan = await renderPage(doc.doc, page, OCR_SCALE, false);
      const b = raw.textless[0]!.bbox;
      const crop = cropRgba(scan, { x0: b.x0 - 4, y0: b.y0 - 4, x1: b.x1 + 4, y1: b.y1 + 4 });
      const guessed = await recognize(crop.image);
      assert.equal(guessed.rotation, 180, 'the reflection under the word wins the orientation vote');
      assert.deepEqual(
        guessed.lines.map((l) => l.text),
        [],
      );
      const upright = await recognize(crop.image, undefined, undefined, undefined, true);
      assert.equal(upright.rotation, 0);
      assert.deepEqual(
        upright.lines.map((l) => l.text),
        ['Foersom'],
      );
    } finally {
      await doc.close();
    }
  });
});
