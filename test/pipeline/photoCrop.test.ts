/**
 * Issue 31: words in a photograph are its scene's. MORAN's Figure 1 shows eight photographs of
 * street signs; OCR of the pictures the text layer lacks read "PARAMOUN" (a cut-off "PARAMOUNT")
 * and "UNDER" from them, and layout set them as `##` headings. A real page from the shared corpus,
 * a real PaddleOCR session; the look-alikes (pictured titles, a band's logo on a poster, whose
 * crops are flat colours) are missingText.test.ts's real pages, which must still be read.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { documentToMarkdown } from '../../server/doctags/markdown';
import { analyzeCorpusPdf } from './analyze';
import { isPhotograph } from '../../server/pipeline/photoCrop';

test("a scene text paper's photographs add no words and no headings (MORAN p1)", async () => {
  const [page] = await analyzeCorpusPdf('opendataloader-samples/1901.03003.pdf', { ocr: 'auto' }, [1]);
  const md = documentToMarkdown([page!.items]);
  assert.ok(!/PARAMOUN|UNDER|FTRTET/.test(md), md);
  assert.deepEqual(
    page!.warnings.filter((w) => w.includes('text read by OCR')),
    [],
  );
  const heads = md.split('\n').filter((l) => /^#{1,6} /.test(l));
  assert.deepEqual(heads, [
    '# MORAN: A Multi-Object Rectified Attention Network for Scene Text Recognition',
    '## Abstract',
    '## 1. Introduction',
  ]);
});

test('isPhotograph: flat colours with anti-aliased edges are artwork, continuous tone a photograph', () => {
  const width = 64;
  const height = 32;
  const flat = new Uint8ClampedArray(width * height * 4);
  const photo = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      // Dark letters on white, one grey blend column at each stroke's edge.
      const v = x % 8 === 0 ? 0 : x % 8 === 1 ? 128 : 255;
      flat.set([v, v, v, 255], i);
      // A gradient in three channels with texture: every pixel its own tone.
      photo.set([(x * 4 + y * 3) % 256, (x * 7 + y * 11) % 256, (x * 13 + y * 5) % 256, 255], i);
    }
  assert.equal(isPhotograph({ data: flat, width, height }), false);
  assert.equal(isPhotograph({ data: photo, width, height }), true);
});
