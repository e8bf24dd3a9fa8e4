import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { pdfjs, pdfjsAssetOptions } from '../../server/pdf/pdfjs';
import { corpusPath } from '../helpers/corpus';

test('pdf.js loads on this Node, reads text and renders a page', async () => {
  const lib = await pdfjs();
  const data = new Uint8Array(readFileSync(corpusPath('selfmade-example/sample.libreoffice.pdf')));
  const task = lib.getDocument({ data, ...pdfjsAssetOptions() });
  const doc = await task.promise;
  try {
    assert.ok(doc.numPages >= 1);
    const page = await doc.getPage(1);
    const text = await page.getTextContent();
    assert.ok(text.items.length > 10, 'text items');
    const viewport = page.getViewport({ scale: 1 });
    const factory = doc.canvasFactory as { create(w: number, h: number): { canvas: unknown } };
    const { canvas } = factory.create(viewport.width, viewport.height);
    await page.render({ canvas: canvas as HTMLCanvasElement, viewport }).promise;
  } finally {
    await task.destroy();
  }
});
