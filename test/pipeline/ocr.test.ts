import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeCorpusPdf, bodyText } from './analyze';

// The OCR engine is tested on its own (test/ocr); here: a page without a text layer goes
// through it, and its words come back as layout items with boxes on the displayed page.
test('a scanned page is read with OCR into text items', async () => {
  const pages = await analyzeCorpusPdf('docling/ocr/ocr_test.pdf', { ocr: 'auto' });
  const p = pages[0];
  assert.equal(p.ocr, true);
  assert.ok(p.provider, 'provider reported');
  const text = bodyText(pages).replace(/\s+/g, ' ');
  assert.match(text, /Docling bundles PDF document ?conversion to JSON and Markdown/);
  for (const it of p.items) {
    assert.ok(
      it.bbox && it.bbox.x0 >= -1 && it.bbox.x1 <= p.width + 1 && it.bbox.y1 <= p.height + 1,
      'box on the page',
    );
  }
});

test('a scan turned 90° is read upright and its boxes map back onto the displayed page', async () => {
  const pages = await analyzeCorpusPdf('docling/ocr/ocr_test_rotated_90.pdf', { ocr: 'auto' });
  const p = pages[0];
  assert.equal(p.ocr, true);
  assert.ok(p.rotation === 90 || p.rotation === 270, `rotation ${p.rotation}`);
  assert.match(bodyText(pages).replace(/\s+/g, ' '), /Docling bundles PDF document ?conversion/);
  const it = p.items.find((i) => i.text.includes('Docling'));
  assert.ok(it?.bbox);
  // Sideways text: its box on the displayed page is taller than wide.
  assert.ok(it.bbox.y1 - it.bbox.y0 > it.bbox.x1 - it.bbox.x0, JSON.stringify(it.bbox));
});

test('ocr "never" leaves a scanned page empty with a warning instead of failing', async () => {
  const pages = await analyzeCorpusPdf('docling/ocr/ocr_test.pdf', { ocr: 'never' });
  assert.equal(pages[0].ocr, false);
  assert.equal(pages[0].items.length, 0);
  assert.match(pages[0].warnings.join(' '), /no usable text layer/);
});
