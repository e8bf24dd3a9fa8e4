/**
 * OCR on a "scan" made from a real born-digital page: rendered at 200 dpi, turned 1° and given
 * sensor-like noise. The page's own text layer is the ground truth.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getOcr, mapUprightToOriginal, type OcrLine } from '../../server/ocr/index';
import { corpusPath } from '../helpers/corpus';
import { scanPdfPage, tokenize, wordRecall } from './scan';

const PAGE = 'docling-src-rendered/docx/lorem_ipsum.docx.pdf';

function inside(a: { x0: number; y0: number; x1: number; y1: number }, b: typeof a, slack: number): boolean {
  return a.x0 >= b.x0 - slack && a.y0 >= b.y0 - slack && a.x1 <= b.x1 + slack && a.y1 <= b.y1 + slack;
}

test('word recall ≥ 0.95 on a skewed, noisy 200-dpi scan; spaces, order and word boxes hold', async () => {
  const scan = await scanPdfPage(corpusPath(PAGE), 1, { dpi: 200, skewDeg: 1, noise: 6, seed: 3 });
  assert.ok(scan.words.length > 300, 'the ground-truth page has a real amount of text');
  const ocr = await getOcr();
  const res = await ocr.recognize(scan.image);
  assert.equal(res.rotation, 0);
  assert.equal(res.width, scan.image.width);
  const found = tokenize(res.lines.map((l) => l.text).join('\n'));
  const recall = wordRecall(scan.words, found);
  console.log(`word recall ${recall.toFixed(3)} (${scan.words.length} words, ${res.lines.length} lines)`);
  assert.ok(recall >= 0.95, `word recall ${recall.toFixed(3)} < 0.95`);

  // Spaces restored: nearly every OCR word is a real word of the page (run-together words are not).
  const vocab = new Set(scan.words);
  const inVocab = found.filter((w) => vocab.has(w)).length / found.length;
  assert.ok(inVocab >= 0.95, `only ${(inVocab * 100).toFixed(1)}% of OCR words are page words (spaces lost?)`);

  // Reading order: consecutive OCR words are mostly consecutive on the page.
  const pairs = new Set(scan.words.slice(1).map((w, i) => scan.words[i] + ' ' + w));
  const kept = found.slice(1).filter((w, i) => pairs.has(found[i] + ' ' + w)).length / (found.length - 1);
  assert.ok(kept >= 0.9, `only ${(kept * 100).toFixed(1)}% of OCR word pairs follow the page order`);

  // Geometry: line quads follow the 1° skew; words sit inside their lines, left to right.
  const long = res.lines.filter((l) => l.bbox.x1 - l.bbox.x0 > scan.image.width / 2);
  assert.ok(long.length > 20);
  for (const l of long) {
    const [tl, tr] = l.quad;
    const deg = (Math.atan2(tr[1] - tl[1], tr[0] - tl[0]) * 180) / Math.PI;
    assert.ok(Math.abs(deg - 1) < 0.35, `line "${l.text.slice(0, 30)}" at ${deg.toFixed(2)}°, expected ~1°`);
  }
  for (const l of res.lines as OcrLine[]) {
    assert.ok(l.words.length > 0);
    assert.equal(l.words.map((w) => w.text).join(' '), l.text);
    for (const w of l.words) assert.ok(inside(w.bbox, l.bbox, 1), `word box of "${w.text}" outside its line`);
    for (let i = 1; i < l.words.length; i++)
      assert.ok(l.words[i].upright.x0 >= l.words[i - 1].upright.x0, 'words left to right');
    // The upright frame is the image turned back by the skew: mapped back, a line's upright box
    // covers its box in the image.
    const back = mapUprightToOriginal(l.upright, res.rotation, res.width, res.height, res.skew);
    assert.ok(inside(l.bbox, back, 2), `line "${l.text.slice(0, 30)}" maps back around its image box`);
  }
  // The skew is measured and undone: in the upright frame the left edges of the long lines line
  // up, where in the image they drift by sin(1°) × the page height.
  assert.ok(Math.abs(res.skew - 1) < 0.3, `skew ${res.skew.toFixed(2)}°, expected ~1°`);
  const spread = (xs: number[]) => Math.max(...xs) - Math.min(...xs);
  const lefts = long.filter((l) => l.bbox.x0 < scan.image.width * 0.2);
  assert.ok(spread(lefts.map((l) => l.bbox.x0)) > 20, 'the image lines drift');
  assert.ok(
    spread(lefts.map((l) => l.upright.x0)) < 8,
    `upright left edges spread ${spread(lefts.map((l) => l.upright.x0)).toFixed(1)} px`,
  );
});
