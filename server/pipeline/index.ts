/**
 * The pipeline engine's entry points, called by the page worker (server/worker/pageWorker.ts):
 * open a PDF, analyze a page and re-parse one region with a given class (reparse.ts). A page is
 * named steps over one page state (state.ts), as the layout below it is stages over its own
 * (layout/index.ts); each step reads the state, does its part or nothing, and fills its fields:
 *
 *   whole-page OCR      no usable text layer, or OCR "always": the scan read and laid out (ocrPage.ts)
 *   missing text        a text-layer page: its textless pictures and drawings read by OCR (missingText.ts)
 *   layout              a text-layer page: its spans and those lines laid out (layout/)
 *   picture text        words OCR found in a picture kept after it as text (pictureText.ts)
 *   lost glyphs         glyphs drawn with no Unicode filled from OCR (lostGlyphs.ts)
 *   implausible lines   lines whose characters a reader would not accept read again (textRepair.ts)
 *   page image          the page at the output scale in the cache folder (pageImage.ts)
 *   pictures            the pictures' crops in the assets folder (pageImage.ts, pictures.ts)
 *
 * pdf.js is read only inside `pdf/` (pdf/page.ts: the page's drawing in one call); the page is
 * rendered at OCR scale at most once, at the output scale at most once. Page furniture is decided
 * across pages on the main thread (convert/furniture.ts).
 */
import type { AnalyzeOptions, PageAnalysis } from '../model/analysis';
import { openPdf, type PdfHandle } from '../pdf/open';
import { getPage, releasePage } from '../pdf/page';
import { layoutPage } from '../layout/index';
import { readPage } from './pageContent';
import { missingTextSpans, readTextless } from './missingText';
import { ocrWholePage } from './ocrPage';
import { pictureText } from './pictureText';
import { restoreLostGlyphs } from './lostGlyphs';
import { repairImplausibleLines } from './textRepair';
import { pageImage, pictures } from './pageImage';
import { laidOut, newPageWork, type PageStep, type PageWork } from './state';

export { openPdf, type PdfHandle };
export { OCR_SCALE } from './state';
export { reparseRegion } from './reparse';

/** Page step: a text-layer page laid out, with the lines OCR found where the layer has none. */
function layoutTextLayer(w: PageWork): void {
  if (w.wantOcr) return;
  const { raw } = w;
  const extra = missingTextSpans(w.found);
  w.laid = layoutPage({
    content: extra.length ? { ...raw.content, spans: [...raw.content.spans, ...extra] } : raw.content,
    stats: w.doc.stats,
    marks: raw.marks,
    angles: extra.length ? [...raw.angles, ...extra.map(() => 0)] : raw.angles,
  });
  w.warnings.push(...w.laid.warnings);
}

/** The steps in the order they run. */
export const PAGE_STEPS: readonly { name: string; run: PageStep }[] = [
  { name: 'whole-page OCR', run: ocrWholePage },
  { name: 'missing text', run: readTextless },
  { name: 'layout', run: layoutTextLayer },
  { name: 'picture text', run: pictureText },
  { name: 'lost glyphs', run: restoreLostGlyphs },
  { name: 'implausible lines', run: repairImplausibleLines },
  { name: 'page image', run: pageImage },
  { name: 'pictures', run: pictures },
];

/** `signal` is polled between stages and inside OCR (see server/worker/cancelFlag.ts). */
export async function analyzePage(
  doc: PdfHandle,
  pageNo: number,
  opts: AnalyzeOptions,
  signal?: AbortSignal,
): Promise<PageAnalysis> {
  const page = await getPage(doc, pageNo);
  try {
    const raw = await readPage(page, pageNo, {
      keepHiddenText: opts.keepHiddenText,
      oversizedImages: doc.oversizedImages,
    });
    const w = newPageWork(doc, page, pageNo, raw, opts, signal);
    for (const step of PAGE_STEPS) await step.run(w);
    const laid = laidOut(w);
    return {
      page: pageNo,
      width: raw.content.width,
      height: raw.content.height,
      items: laid.items,
      furnitureCandidates: laid.furnitureCandidates,
      ...w.read,
      warnings: w.warnings,
      ...(w.pageImage ? { image: w.pageImage } : {}),
    };
  } finally {
    releasePage(page);
  }
}
