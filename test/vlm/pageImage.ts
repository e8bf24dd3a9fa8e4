/** Test helper: renders a page of a real corpus PDF with pdf.js to RGBA pixels. */
import { readFileSync } from 'node:fs';
import { pdfjs, pdfjsAssetOptions } from '../../server/pdf/pdfjs';
import { corpusPath } from '../helpers/corpus';

export async function renderPage(rel: string, pageNo: number, scale: number) {
  const lib = await pdfjs();
  const task = lib.getDocument({ data: new Uint8Array(readFileSync(corpusPath(rel))), ...pdfjsAssetOptions() });
  const doc = await task.promise;
  try {
    const page = await doc.getPage(pageNo);
    const vp1 = page.getViewport({ scale: 1 });
    const viewport = page.getViewport({ scale });
    const factory = doc.canvasFactory as {
      create(w: number, h: number): { canvas: { getContext(k: '2d'): CanvasRenderingContext2D } };
    };
    const { canvas } = factory.create(Math.round(viewport.width), Math.round(viewport.height));
    await page.render({ canvas: canvas as unknown as HTMLCanvasElement, viewport }).promise;
    const img = canvas.getContext('2d').getImageData(0, 0, Math.round(viewport.width), Math.round(viewport.height));
    return { data: img.data, width: img.width, height: img.height, pageWidth: vp1.width, pageHeight: vp1.height };
  } finally {
    await task.destroy();
  }
}
