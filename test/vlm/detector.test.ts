import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { findDetector, HeronDetector } from '../../server/vlm/detector';
import { REGION_CLASSES } from '../../server/protocol';
import { tinyModels } from './tinyModels';
import { renderPage } from './pageImage';

let fx: ReturnType<typeof tinyModels>;
before(() => {
  fx = tinyModels();
});
after(() => fx?.cleanup());

test('heron-format detector: found under the models root, boxes scaled to the page in points', async () => {
  const path = findDetector(fx.root);
  assert.equal(path, join(fx.dirs.heron, 'model.onnx'));
  const det = await HeronDetector.load(path!, ['cpu'], 1);
  try {
    const page = await renderPage('selfmade-example/sample.libreoffice.pdf', 1, 1);
    const items = await det.detect({ data: page.data, width: page.width, height: page.height }, { width: page.pageWidth, height: page.pageHeight });
    assert.ok(items.length > 0, 'the random detector scores some queries above 0.3');
    for (const it of items) {
      assert.ok(REGION_CLASSES.includes(it.cls));
      assert.ok(it.bbox!.x0 >= 0 && it.bbox!.x1 <= page.pageWidth && it.bbox!.y1 <= page.pageHeight && it.bbox!.x0 < it.bbox!.x1);
      assert.ok(it.grid!.every((v) => v >= 0 && v <= 499));
    }
    for (let i = 1; i < items.length; i++) assert.ok(items[i - 1].bbox!.y0 <= items[i].bbox!.y0, 'sorted top to bottom');
  } finally {
    await det.release();
  }
});
