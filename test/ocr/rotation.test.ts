/**
 * Page rotation: the corpus's scanned page in four orientations, and a real page turned by each
 * quarter turn here (which pins the rotation convention and the box mapping).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { getOcr, mapUprightToOriginal, type OcrResult, type Rotation } from '../../server/ocr/index';
import type { RgbaImage } from '../../server/ocr/types';
import { corpusPath } from '../helpers/corpus';
import { rotateQuarter, scanPdfPage, tokenize, wordRecall } from './scan';

const DIR = 'docling/ocr/';

function wordsOf(res: OcrResult): string[] {
  return tokenize(res.lines.map((l) => l.text).join('\n'));
}

test('the corpus scan reads upright in all four orientations', async () => {
  const truth = tokenize(readFileSync(corpusPath(DIR + 'ocr_test.md'), 'utf8'));
  assert.ok(truth.length >= 10);
  const ocr = await getOcr();
  const rotations: Record<string, Rotation> = {};
  for (const name of ['ocr_test', 'ocr_test_rotated_90', 'ocr_test_rotated_180', 'ocr_test_rotated_270']) {
    const scan = await scanPdfPage(corpusPath(DIR + name + '.pdf'), 1, { dpi: 200 });
    assert.equal(scan.words.length, 0, `${name} is a scan without a text layer`);
    const res = await ocr.recognize(scan.image);
    rotations[name] = res.rotation;
    const found = wordsOf(res);
    const recall = wordRecall(truth, found);
    assert.ok(recall >= 0.95, `${name}: recall ${recall.toFixed(2)} (rotation ${res.rotation}): ${found.join(' ')}`);
    // Upright text in reading order: the words come out in the ground truth's sequence.
    assert.deepEqual(
      found.filter((w) => truth.includes(w)),
      truth.filter((w) => found.includes(w)),
      `${name} word order`,
    );
  }
  assert.equal(rotations.ocr_test, 0);
  assert.equal(rotations.ocr_test_rotated_180, 180);
  assert.deepEqual(
    [rotations.ocr_test_rotated_90, rotations.ocr_test_rotated_270].sort((a, b) => a - b),
    [90, 270],
  );
});

function crop(img: RgbaImage, x0: number, y0: number, w: number, h: number): RgbaImage {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++)
    data.set(img.data.subarray(((y0 + y) * img.width + x0) * 4, ((y0 + y) * img.width + x0 + w) * 4), y * w * 4);
  return { data, width: w, height: h };
}

test('a page turned by each quarter turn is detected as that rotation, with boxes mapping back', async () => {
  const scan = await scanPdfPage(corpusPath('docling-src-rendered/docx/lorem_ipsum.docx.pdf'), 1, { dpi: 200 });
  // The first paragraph only, to keep the test short.
  const top = crop(scan.image, 0, 0, scan.image.width, Math.min(scan.image.height, 700));
  const ocr = await getOcr();
  const upright = await ocr.recognize(top);
  assert.equal(upright.rotation, 0);
  const truth = wordsOf(upright);
  assert.ok(truth.length > 40);
  for (const q of [1, 2, 3] as const) {
    const img = rotateQuarter(top, q);
    const res = await ocr.recognize(img);
    assert.equal(res.rotation, q * 90, `turned ${q * 90}° clockwise`);
    assert.equal(res.skew, 0, 'a clean render is not deskewed');
    const recall = wordRecall(truth, wordsOf(res));
    assert.ok(recall >= 0.95, `turned ${q * 90}°: recall ${recall.toFixed(2)} against the upright reading`);
    for (const l of res.lines) {
      // The upright box lands on the line's box in the turned image.
      const back = mapUprightToOriginal(l.upright, res.rotation, res.width, res.height, res.skew);
      for (const k of ['x0', 'y0', 'x1', 'y1'] as const)
        assert.ok(Math.abs(back[k] - l.bbox[k]) < 1e-6, `${k} maps back`);
      // Upright lines are wide and flat, whatever the turn.
      assert.ok(l.upright.x1 - l.upright.x0 >= l.upright.y1 - l.upright.y0, `"${l.text}" upright box is horizontal`);
    }
  }
});
