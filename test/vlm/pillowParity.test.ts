/**
 * Folio's tiles against the real processor's: transformers 5.18's Idefics3ImageProcessorPil on
 * granite-docling's own preprocessor_config.json, for three page images
 * (../shared/models/granite-docling-258M/reference/, made by ../shared/tools/hf_processor_reference.py).
 * Every tile value must equal the reference's (0 levels off), with the WebAssembly SIMD kernels and
 * with the TypeScript ones, and the prompt ids equal.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { assembleTokenizerJson, GRANITE_PREPROCESS, graniteFilesDir } from '../../scripts/fixtures/realFiles';
import { Tokenizer } from '../../server/vlm/tokenizer';
import { chatPrompt, PAGE_INSTRUCTION } from '../../server/vlm/prompt';
import { preprocessHere, tileGrid, imagePromptString } from '../../server/vlm/preprocess';
import { defaultResampleKernel, pilResize, type ResampleKernel } from '../../server/vlm/pilResample';

const REAL_PRE = GRANITE_PREPROCESS;

const refRoot = join(graniteFilesDir(), 'reference');
const cases = readdirSync(refRoot, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();

test('the three reference images are there', () => {
  assert.deepEqual(cases, ['crop_twocol-1', 'page_sample-1', 'page_threecol.libreoffice-1']);
});

test('this runtime has WebAssembly SIMD, so the product path runs the WebAssembly kernels', () => {
  assert.equal(defaultResampleKernel(), 'wasm');
});

const KERNELS: ResampleKernel[] = ['wasm', 'js'];
for (const [name, kernel] of cases.flatMap((n) => KERNELS.map((k) => [n, k] as const))) {
  test(`${name} (${kernel} kernels): every tile value equals transformers' Pillow processor's`, async (t) => {
    const dir = join(refRoot, name);
    const ref = JSON.parse(readFileSync(join(dir, 'reference.json'), 'utf8')) as {
      image_size: [number, number];
      tiles: number;
    };
    const input = await sharp(join(dir, 'input.png')).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    assert.deepEqual([input.info.width, input.info.height], ref.image_size);
    const t0 = performance.now();
    const out = await preprocessHere(
      { data: new Uint8Array(input.data), width: input.info.width, height: input.info.height, channels: 3 },
      REAL_PRE,
      undefined,
      kernel,
    );
    const ms = performance.now() - t0;
    assert.equal(out.grid.images, ref.tiles);
    const T = 512;
    const TT = T * T;
    let worst = 0;
    let differing = 0;
    for (let i = 0; i < ref.tiles; i++) {
      const tile = await sharp(join(dir, `tile${String(i).padStart(2, '0')}.png`))
        .removeAlpha()
        .raw()
        .toBuffer();
      assert.equal(tile.length, 3 * TT);
      for (let y = 0; y < T; y++)
        for (let x = 0; x < T; x++)
          for (let c = 0; c < 3; c++) {
            const v = out.pixelValues[i * 3 * TT + c * TT + y * T + x];
            const level = Math.round((v * 0.5 + 0.5) * 255);
            const d = Math.abs(level - tile[(y * T + x) * 3 + c]);
            if (d > 0) differing++;
            if (d > worst) worst = d;
          }
    }
    t.diagnostic(
      `${name} (${kernel}): ${ref.tiles} tiles, largest difference ${worst} level(s), ${differing} values differ; preprocessing took ${ms.toFixed(0)} ms`,
    );
    assert.equal(
      differing,
      0,
      `${name} (${kernel}): ${differing} tile values differ from the processor's, by up to ${worst} levels`,
    );
  });
}

test('the prompt ids equal the processor input_ids on all three images', () => {
  const tok = new Tokenizer(assembleTokenizerJson() as unknown as ConstructorParameters<typeof Tokenizer>[0]);
  for (const name of cases) {
    const ref = JSON.parse(readFileSync(join(refRoot, name, 'reference.json'), 'utf8')) as {
      image_size: [number, number];
      input_ids: number[];
    };
    const g = tileGrid(ref.image_size[0], ref.image_size[1], REAL_PRE);
    const ids = tok.encode(chatPrompt(imagePromptString(g.rows, g.cols, 64), PAGE_INSTRUCTION));
    assert.deepEqual(ids, ref.input_ids, name);
  }
});

test("pilResize matches values computed by hand from Pillow's convention", () => {
  // 4 → 2 with bilinear: scale 2, support 2, centre 1 and 3; weights on pixels 0..2 (0.25,0.5,0.25)
  // normalised, fixed point 22 bits, +half, >>22.
  const src = new Uint8Array([0, 100, 200, 255]);
  const out = pilResize(src, 4, 1, 1, 2, 1, 'bilinear');
  // x=0: centre 1, support 2, window [0, 3): taps at (i − 1 + 0.5) / 2 = −0.25, 0.25, 0.75.
  const w0 = [0.75, 0.75, 0.25];
  const s0 = w0.reduce((a, b) => a + b);
  const k0 = w0.map((w) => Math.trunc(0.5 + (w / s0) * 2 ** 22));
  const e0 = (2 ** 21 + 0 * k0[0] + 100 * k0[1] + 200 * k0[2]) >> 22;
  assert.equal(out[0], e0);
  assert.equal(pilResize(src, 4, 1, 1, 4, 1, 'lanczos').join(), src.join(), 'same size: a copy');
});
