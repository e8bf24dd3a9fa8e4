import { test } from 'node:test';
import assert from 'node:assert/strict';
import { profileSkew } from '../../server/ocr/skew';

/**
 * A detector probability map like DB's on a page of three narrow columns: each line a band of
 * "words" 5 px high (the model's shrunk text kernels), 14 px apart, the whole page turned by
 * `deg` about its centre. `sx`, `sy`: map to image scale (a 200-dpi A4 page mapped to 960 px).
 */
function columnsMap(deg: number, w = 680, h = 960): Float32Array {
  const prob = new Float32Array(w * h);
  const t = (deg * Math.PI) / 180;
  const [cx, cy] = [w / 2, h / 2];
  const cols = [
    [60, 230],
    [255, 425],
    [450, 620],
  ];
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      // Back to the unturned page: is this pixel inside a word of a line?
      const ux = (x - cx) * Math.cos(t) + (y - cy) * Math.sin(t) + cx;
      const uy = -(x - cx) * Math.sin(t) + (y - cy) * Math.cos(t) + cy;
      if (uy < 80 || uy > 900 || (uy - 80) % 14 >= 5) continue;
      const col = cols.find(([a, b]) => ux >= a && ux < b);
      // Word gaps every 30 px, staggered by line so they form no vertical rivers.
      const line = Math.floor((uy - 80) / 14);
      if (col && (ux - col[0] + line * 7) % 30 < 25) prob[y * w + x] = 0.9;
    }
  return prob;
}

test('profileSkew reads the skew of a page of narrow columns within 0.1°, either sign', () => {
  for (const deg of [-0.66, -0.3, 0.25, 0.9, 2]) {
    const got = profileSkew(columnsMap(deg), 680, 960, 0.3, 2.44, 2.44);
    assert.ok(got !== undefined && Math.abs(got - deg) < 0.1, `turned ${deg}°, measured ${got}°`);
  }
});

test('profileSkew reads an unturned page as level (under the engine’s 0.15° floor)', () => {
  const got = profileSkew(columnsMap(0), 680, 960, 0.3, 2.44, 2.44);
  assert.ok(got !== undefined && Math.abs(got) < 0.15, `measured ${got}°`);
});

test('profileSkew says nothing on a map with almost no text', () => {
  const prob = new Float32Array(100 * 100);
  for (let x = 10; x < 60; x++) prob[50 * 100 + x] = 0.9;
  assert.equal(profileSkew(prob, 100, 100, 0.3), undefined);
});
