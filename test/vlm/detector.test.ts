import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeModel } from '../../scripts/fixtures/onnxWriter';
import { detectorGraph } from '../../scripts/fixtures/tinyVlm';
import { findDetector, HeronDetector } from '../../server/vlm/detector';
import { REGION_CLASSES } from '../../common/protocol';
import { tinyModels } from './tinyModels';
import { renderPage } from './pageImage';

let fx: ReturnType<typeof tinyModels>;
before(() => {
  fx = tinyModels();
});
after(() => fx?.cleanup());

test('heron-format detector: found under the models root, uint8 input as the session declares it, boxes scaled to the page in points', async () => {
  const path = findDetector(fx.root);
  assert.equal(path, join(fx.dirs.heron, 'model.onnx'));
  const det = await HeronDetector.load(path!, ['cpu'], 1);
  assert.equal(det.inputType, 'uint8', 'the official export takes uint8 pixels');
  assert.equal(det.doRescale, false, "heron's config: do_rescale false");
  assert.equal(det.kernel, 'linear', 'bilinear (PIL resample 2) from the config');
  try {
    const page = await renderPage('selfmade-example/sample.libreoffice.pdf', 1, 1);
    const items = await det.detect(
      { data: page.data, width: page.width, height: page.height },
      { width: page.pageWidth, height: page.pageHeight },
    );
    assert.ok(items.length > 0, 'the random detector scores some queries above 0.3');
    for (const it of items) {
      assert.ok(REGION_CLASSES.includes(it.cls));
      assert.ok(
        it.bbox!.x0 >= 0 &&
          it.bbox!.x1 <= page.pageWidth &&
          it.bbox!.y1 <= page.pageHeight &&
          it.bbox!.x0 < it.bbox!.x1,
      );
      assert.ok(it.grid!.every((v) => v >= 0 && v <= 499));
    }
    for (let i = 1; i < items.length; i++)
      assert.ok(items[i - 1].bbox!.y0 <= items[i].bbox!.y0, 'sorted top to bottom');
  } finally {
    await det.release();
  }
});

test('a float32 detector export gets rescaled pixels, and finds the same boxes as the uint8 one', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'folio-heron-f32-'));
  try {
    writeFileSync(join(dir, 'model.onnx'), encodeModel(detectorGraph(20, 17, 5, 'float')).model);
    writeFileSync(
      join(dir, 'preprocessor_config.json'),
      JSON.stringify({ size: { height: 640, width: 640 }, resample: 2, do_rescale: true, rescale_factor: 1 / 255 }),
    );
    const f32 = await HeronDetector.load(join(dir, 'model.onnx'), ['cpu'], 1);
    const u8 = await HeronDetector.load(join(fx.dirs.heron, 'model.onnx'), ['cpu'], 1);
    try {
      assert.equal(f32.inputType, 'float32');
      const page = await renderPage('selfmade-example/sample.libreoffice.pdf', 1, 1);
      const img = { data: page.data, width: page.width, height: page.height };
      const size = { width: page.pageWidth, height: page.pageHeight };
      const a = await f32.detect(img, size);
      const b = await u8.detect(img, size);
      assert.ok(a.length > 0);
      assert.deepEqual(
        a.map((i) => [i.cls, i.grid]),
        b.map((i) => [i.cls, i.grid]),
        'same weights, same pixels: the graph rescales uint8 exactly as Folio rescales float',
      );
    } finally {
      await f32.release();
      await u8.release();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
