import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { imagePromptString, preprocessImage, tileGrid } from '../../server/vlm/preprocess';
import { loadVlmConfig, onnxFilesFor } from '../../server/vlm/config';
import { GRANITE_PREPROCESS, graniteFilesDir } from '../../scripts/fixtures/realFiles';

/** granite-docling's preprocessor_config.json values (size.longest_edge 2048, max_image_size 512). */
const REAL = GRANITE_PREPROCESS;

test("GRANITE_PREPROCESS is what Folio's loader reads from the real preprocessor_config.json", () => {
  // The real configs in a model folder whose weight files are 1-byte stand-ins (the loader only
  // checks they exist and are not empty): the tests' and benches' constant is the product's reading.
  const dir = mkdtempSync(join(tmpdir(), 'folio-preconfig-'));
  try {
    for (const f of ['config.json', 'preprocessor_config.json']) copyFileSync(join(graniteFilesDir(), f), join(dir, f));
    for (const rel of [...Object.values(onnxFilesFor('fp32')), 'tokenizer.json']) {
      mkdirSync(dirname(join(dir, rel)), { recursive: true });
      writeFileSync(join(dir, rel), 'x');
    }
    assert.deepEqual(loadVlmConfig(dir).preprocess, GRANITE_PREPROCESS);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a 1700×2200 page image gives a 4×4 grid + global image = 17 images, 1088 <image> tokens', () => {
  const g = tileGrid(1700, 2200, REAL);
  assert.deepEqual(g.resized, { width: 1582, height: 2048 });
  assert.deepEqual(g.padded, { width: 2048, height: 2048 });
  assert.equal(g.rows, 4);
  assert.equal(g.cols, 4);
  assert.equal(g.images, 17);
  const prompt = imagePromptString(g.rows, g.cols, 64);
  assert.equal(prompt.match(/<image>/g)!.length, 17 * 64);
  assert.equal(prompt.match(/<fake_token_around_image>/g)!.length, 16 + 2);
  assert.ok(prompt.startsWith('<fake_token_around_image><row_1_col_1><image>'));
  assert.ok(prompt.includes('<row_4_col_4>'));
  assert.ok(prompt.endsWith('<image><fake_token_around_image>'));
  assert.equal(prompt.split('\n').length - 1, 4 + 1, 'a newline after each row, one before the global image');
});

test('landscape and small images: grid follows the aspect ratio; no splitting → one 512 image', () => {
  assert.deepEqual([tileGrid(2200, 1700, REAL).rows, tileGrid(2200, 1700, REAL).cols], [4, 4]);
  const wide = tileGrid(400, 100, REAL); // 2048 × 512 → one row of four tiles
  assert.deepEqual([wide.rows, wide.cols, wide.images], [1, 4, 5]);
  assert.deepEqual(tileGrid(400, 300, { ...REAL, splitting: false }), {
    resized: { width: 2048, height: 1536 },
    padded: { width: 512, height: 512 },
    rows: 0,
    cols: 0,
    images: 1,
  });
  assert.equal(
    imagePromptString(0, 0, 64),
    '<fake_token_around_image><global-img>' + '<image>'.repeat(64) + '<fake_token_around_image>',
  );
});

test('pixels are rescaled by 1/255 and normalized with mean = std = 0.5, channels first', async () => {
  const w = 600;
  const h = 300;
  const data = new Uint8ClampedArray(w * h * 4);
  for (let i = 0; i < w * h; i++) {
    const left = i % w < w / 2;
    data.set(left ? [255, 255, 255, 255] : [0, 0, 255, 255], i * 4);
  }
  const out = await preprocessImage({ data, width: w, height: h }, REAL);
  assert.deepEqual([out.grid.rows, out.grid.cols, out.grid.images], [2, 4, 9]);
  assert.equal(out.pixelValues.length, 9 * 3 * 512 * 512);
  const T = 512 * 512;
  // Tile 0 (top-left) is white: every channel ≈ +1.
  for (const c of [0, 1, 2]) assert.ok(Math.abs(out.pixelValues[c * T + 1000] - 1) < 1e-3);
  // Tile 3 (top-right) is blue: R, G ≈ −1, B ≈ +1.
  const base = 3 * 3 * T;
  assert.ok(Math.abs(out.pixelValues[base + 1000] + 1) < 1e-3);
  assert.ok(Math.abs(out.pixelValues[base + 2 * T + 1000] - 1) < 1e-3);
});
