/**
 * One region read again with a class the user chose (the preview's edit-and-reparse): the text
 * layer's spans in it, or, where the page needs OCR, OCR of its crop; laid out alone
 * (layout/region.ts).
 */
import type { BBox, RegionClass } from '../../common/protocol';
import type { DocItem } from '../model/items';
import type { AnalyzeOptions } from '../model/analysis';
import type { PdfHandle } from '../pdf/open';
import { getPage, releasePage } from '../pdf/page';
import { renderPage, renderSkipReason } from '../pdf/render';
import { textLayerUsable } from '../pdf/text';
import { layoutRegion } from '../layout/index';
import { readPage, type RawPage } from './pageContent';
import { recognize } from './ocrBridge';
import { ocrToSpans } from './ocrPage';
import { cropRgba } from './crop';
import { OCR_SCALE } from './state';

export async function reparseRegion(
  doc: PdfHandle,
  pageNo: number,
  bbox: BBox,
  cls: RegionClass,
  opts: AnalyzeOptions,
): Promise<DocItem> {
  const page = await getPage(doc, pageNo);
  try {
    const raw: RawPage = await readPage(page, pageNo, { keepHiddenText: opts.keepHiddenText });
    const { width: W, height: H } = raw.content;
    let content = raw.content;
    const usable = textLayerUsable(raw.content.spans);
    if (!renderSkipReason(W, H) && (opts.ocr === 'always' || (opts.ocr === 'auto' && !usable))) {
      const scan = await renderPage(doc.doc, page, OCR_SCALE, false);
      const crop = cropRgba(scan, bbox);
      const ocr = await recognize(crop.image, opts.providers);
      const os = ocrToSpans(ocr, crop.image.width, crop.image.height, scan.scale);
      // OCR of a crop: map its boxes back by the crop's origin (rotation undone inside the crop).
      const spans = os.spans.map((s) => {
        const b = os.toDisplayed(s.bbox);
        return { ...s, bbox: { x0: b.x0 + crop.x0, y0: b.y0 + crop.y0, x1: b.x1 + crop.x0, y1: b.y1 + crop.y0 } };
      });
      content = { ...content, spans, rules: [], graphics: [] };
    }
    return layoutRegion(content, bbox, cls, { width: W, height: H });
  } finally {
    releasePage(page);
  }
}
