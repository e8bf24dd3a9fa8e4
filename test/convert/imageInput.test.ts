/**
 * Images as input: a PNG/JPEG/TIFF scan becomes an image-only PDF that pdf.js reads at the
 * image's resolution (JPEG bytes embedded unchanged, every TIFF page a page), and
 * `folio convert scan.png` reads it through OCR; a file that is not an image fails naming it.
 * The scans are real renders of test/fixtures/sample.pdf (pdf.js at 200 dpi).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import sharp from 'sharp';
import { pdfForInput } from '../../server/convert/imageInput';
import { pdfjs, pdfjsAssetOptions } from '../../server/pdf/pdfjs';
import type { ConvertSummary } from '../../common/protocol';
import { scanPdfPage, tokenize, wordRecall } from '../ocr/scan';
import { repoRoot } from '../helpers/corpus';

let dir: string;
let truth: string[];

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'folio-imgin-'));
  const scan = await scanPdfPage(join(repoRoot(), 'test', 'fixtures', 'sample.pdf'), 1, { dpi: 200 });
  truth = scan.words;
  const raw = sharp(Buffer.from(scan.image.data.buffer), {
    raw: { width: scan.image.width, height: scan.image.height, channels: 4 },
  });
  await raw.clone().withMetadata({ density: 200 }).png().toFile(join(dir, 'scan.png'));
  await raw.clone().removeAlpha().withMetadata({ density: 200 }).jpeg({ quality: 90 }).toFile(join(dir, 'scan.jpg'));
  const page2 = await scanPdfPage(join(repoRoot(), 'test', 'fixtures', 'sample.pdf'), 2, { dpi: 100 });
  // A two-page TIFF: raw pixels of both pages stacked, split into pages by pageHeight.
  const a = await raw
    .clone()
    .resize(page2.image.width, page2.image.height, { fit: 'fill' })
    .removeAlpha()
    .raw()
    .toBuffer();
  const b = await sharp(Buffer.from(page2.image.data.buffer), {
    raw: { width: page2.image.width, height: page2.image.height, channels: 4 },
  })
    .removeAlpha()
    .raw()
    .toBuffer();
  await sharp(Buffer.concat([a, b]), {
    raw: { width: page2.image.width, height: page2.image.height * 2, channels: 3, pageHeight: page2.image.height },
  })
    .tiff({ compression: 'lzw' })
    .withMetadata({ density: 100 })
    .toFile(join(dir, 'scan.tiff'));
  writeFileSync(join(dir, 'broken.png'), 'this is not an image');
});
after(() => rmSync(dir, { recursive: true, force: true }));

async function readPdf(path: string): Promise<{ pages: { w: number; h: number; text: number }[] }> {
  const lib = await pdfjs();
  const task = lib.getDocument({ data: new Uint8Array(readFileSync(path)), ...pdfjsAssetOptions() });
  const doc = await task.promise;
  try {
    const pages = [];
    for (let i = 1; i <= doc.numPages; i++) {
      const p = await doc.getPage(i);
      const vp = p.getViewport({ scale: 1 });
      pages.push({ w: vp.width, h: vp.height, text: (await p.getTextContent()).items.length });
    }
    return { pages };
  } finally {
    await task.destroy();
  }
}

test('PNG, JPEG, TIFF → image-only PDFs at the image resolution (pdf.js reads them)', async () => {
  for (const name of ['scan.png', 'scan.jpg']) {
    const made = await pdfForInput(join(dir, name));
    try {
      assert.match(made.path, /scan\.pdf$/, 'named after the image');
      const { pages } = await readPdf(made.path);
      assert.equal(pages.length, 1);
      assert.ok(
        Math.abs(pages[0]!.w - 612) < 2 && Math.abs(pages[0]!.h - 792) < 2,
        `${name}: the letter page again at 200 dpi (${pages[0]!.w}×${pages[0]!.h})`,
      );
      assert.equal(pages[0]!.text, 0, 'no text layer: the OCR path');
      if (name === 'scan.jpg')
        assert.ok(readFileSync(made.path).includes(readFileSync(join(dir, name))), 'JPEG embedded byte for byte');
    } finally {
      made.cleanup();
    }
  }
  const tiff = await pdfForInput(join(dir, 'scan.tiff'));
  try {
    const { pages } = await readPdf(tiff.path);
    assert.equal(pages.length, 2, 'one PDF page per TIFF page');
  } finally {
    tiff.cleanup();
  }
  const same = await pdfForInput(join(repoRoot(), 'test', 'fixtures', 'sample.pdf'));
  assert.equal(same.path, join(repoRoot(), 'test', 'fixtures', 'sample.pdf'), 'a PDF goes through unchanged');
  await assert.rejects(pdfForInput(join(dir, 'broken.png')), /broken\.png could not be read as an image/);
});

test('folio convert scan.png reads the page with OCR', () => {
  const r = spawnSync(
    process.execPath,
    [join(repoRoot(), 'dist', 'cli.js'), 'convert', 'scan.png', '--format', 'json', '-q'],
    { cwd: dir, encoding: 'utf8', timeout: 300_000 },
  );
  assert.equal(r.status, 0, r.stderr);
  const summary = JSON.parse(readFileSync(join(dir, 'scan.folio-result.json'), 'utf8')) as ConvertSummary;
  assert.equal(summary.pages![0]!.ocr, true, 'read with OCR');
  const recall = wordRecall(truth, tokenize(summary.markdown));
  assert.ok(recall > 0.85, `word recall ${recall.toFixed(3)}`);
  const bad = spawnSync(process.execPath, [join(repoRoot(), 'dist', 'cli.js'), 'convert', 'broken.png', '-q'], {
    cwd: dir,
    encoding: 'utf8',
  });
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /broken\.png could not be read as an image/);
});
