/**
 * The pipeline engine's entry points, called by the page worker (server/worker/pageWorker.ts):
 * open a PDF, analyze a page (text layer or OCR → layout → DocItems) and re-parse one region with
 * a given class. Page furniture is decided across pages on the main thread (convert/furniture.ts).
 */
import { join } from 'node:path';
import type { PDFPageProxy } from 'pdfjs-dist/types/src/display/api';
import type { BBox, RegionClass } from '../../common/protocol';
import { toGrid, type DocItem } from '../model/items';
import type { PageContent } from '../model/content';
import type { AnalyzeOptions, PageAnalysis } from '../model/analysis';
import { openPdf, type PdfHandle } from '../pdf/open';
import { renderPage, renderSkipReason, type RenderedPage } from '../pdf/render';
import { pdfjsWork } from '../pdf/guard';
import { readCachedPng, writeCacheEntry } from '../util/cache';
import { textLayerUsable } from '../pdf/text';
import { layoutPage, layoutRegion } from '../layout/index';
import { readPage, type RawPage } from './pageContent';
import { recognize } from './ocrBridge';
import { lowOcrConfidenceWarning, ocrToSpans } from './ocrPage';
import { savePictures } from './pictures';
import { implausibleText, patchFromOcr, patchGlued, type Repair } from './textRepair';

export { openPdf, type PdfHandle };

/** OCR renders at 200 dpi: PaddleOCR's detector is tuned for text about 20–40 px high. */
export const OCR_SCALE = 200 / 72;

async function getPage(doc: PdfHandle, pageNo: number): Promise<PDFPageProxy> {
  if (!Number.isInteger(pageNo) || pageNo < 1 || pageNo > doc.numPages) {
    throw new Error(`page ${pageNo} does not exist: the document has ${doc.numPages} page(s)`);
  }
  return pdfjsWork(() => doc.doc.getPage(pageNo));
}

/** `signal` is polled between stages and inside OCR (see server/worker/cancelFlag.ts). */
export async function analyzePage(
  doc: PdfHandle,
  pageNo: number,
  opts: AnalyzeOptions,
  signal?: AbortSignal,
): Promise<PageAnalysis> {
  const page = await getPage(doc, pageNo);
  try {
    const raw = await readPage(page, pageNo);
    const { width: W, height: H } = raw.content;
    const warnings: string[] = [];
    const usable = textLayerUsable(raw.content.spans);
    const blank = raw.content.spans.length === 0 && raw.content.graphics.length === 0 && !raw.pageImage;
    // A page too large to render within the pixel cap gets no page image, crops or OCR.
    const tooLarge = renderSkipReason(W, H);
    if (tooLarge) warnings.push(tooLarge);
    const wantOcr = !tooLarge && (opts.ocr === 'always' || (opts.ocr === 'auto' && !usable && !blank));
    if (!usable && !blank && opts.ocr === 'never')
      warnings.push('this page has no usable text layer and OCR is turned off: its text is missing');

    let image: RenderedPage | undefined;
    let laid: ReturnType<typeof layoutPage>;
    /** How the page's text was read: OCR (its rotation and provider) or the text layer. */
    let read: Pick<PageAnalysis, 'ocr' | 'rotation' | 'provider'>;
    if (wantOcr) {
      const scan = await renderPage(doc.doc, page, OCR_SCALE, false);
      signal?.throwIfAborted();
      const ocr = await recognize({ data: scan.data, width: scan.width, height: scan.height }, opts.providers, signal);
      const os = ocrToSpans(ocr, scan.width, scan.height, scan.scale);
      const doubt = lowOcrConfidenceWarning(ocr.confidence);
      if (doubt) warnings.push(doubt);
      const content: PageContent = {
        page: pageNo,
        width: os.width,
        height: os.height,
        spans: os.spans,
        rules: [],
        graphics: [],
      };
      laid = layoutPage({
        content,
        stats: ocrStats(os.spans.map((s) => s.fontSize)),
        marks: [],
      });
      warnings.push(...laid.warnings);
      for (const it of laid.items) {
        if (!it.bbox) continue;
        it.bbox = os.toDisplayed(it.bbox);
        it.grid = toGrid(it.bbox, { width: W, height: H });
      }
      read = { ocr: true, rotation: ocr.rotation, provider: ocr.provider };
    } else {
      laid = layoutPage({
        content: raw.content,
        stats: doc.stats,
        marks: raw.marks,
        angles: raw.angles,
      });
      warnings.push(...laid.warnings);
      read = { ocr: false, rotation: 0 };
      if (!tooLarge && opts.ocr !== 'never')
        await repairImplausibleLines(doc, page, laid.items, opts, warnings, signal);
    }
    const result: PageAnalysis = {
      page: pageNo,
      width: W,
      height: H,
      items: laid.items,
      furnitureCandidates: laid.furnitureCandidates,
      ...read,
      warnings,
    };

    if (opts.renderImages && !tooLarge) {
      const file = join(opts.cacheDir, `${doc.fileKey}-p${pageNo}-s${opts.scale}.png`);
      const needPixels = opts.assetsDir !== undefined && result.items.some((i) => i.cls === 'picture');
      // A hit is trusted only when it is a plain file holding a PNG (server/util/cache).
      const cached = needPixels ? undefined : readCachedPng(file);
      if (cached) {
        result.image = { path: file, width: cached.width, height: cached.height };
      } else {
        image = await renderPage(doc.doc, page, opts.scale, true);
        await writeCacheEntry(opts.cacheDir, file, image.png!);
        result.image = { path: file, width: image.width, height: image.height };
      }
    }
    if (opts.assetsDir && !tooLarge && result.items.some((i) => i.cls === 'picture')) {
      image ??= await renderPage(doc.doc, page, opts.scale || 2, false);
      warnings.push(...(await savePictures(result.items, image, doc.path, pageNo, opts.assetsDir, opts.markdownDir)));
    }
    return result;
  } finally {
    page.cleanup();
  }
}

/** At most this many items of a page are read again by OCR (each is one OCR call on its crop). */
const REPAIR_MAX_ITEMS = 12;

/**
 * Items whose text-layer characters are implausible (textRepair.ts) read again by OCR from the
 * page rendered at OCR_SCALE, each from its own crop; the page's warnings say which.
 */
async function repairImplausibleLines(
  doc: PdfHandle,
  page: PDFPageProxy,
  items: DocItem[],
  opts: AnalyzeOptions,
  warnings: string[],
  signal?: AbortSignal,
): Promise<void> {
  const suspects = items
    // Text with inline math is left alone: its formulas are set in math fonts, whose private-use
    // glyphs are symbols the OCR model does not know, and its parts would have to be rebuilt.
    .map((it) => ({
      it,
      how: it.bbox && !NOT_TEXT.has(it.cls) && !it.parts?.length ? implausibleText(it.text) : undefined,
    }))
    .filter((x): x is { it: DocItem; how: Repair } => x.how !== undefined)
    .slice(0, REPAIR_MAX_ITEMS);
  if (!suspects.length) return;
  const scan = await renderPage(doc.doc, page, OCR_SCALE, false);
  const repaired: string[] = [];
  for (const { it, how } of suspects) {
    signal?.throwIfAborted();
    const b = it.bbox!;
    const pad = 2;
    const crop = cropRgba(scan, { x0: b.x0 - pad, y0: b.y0 - pad, x1: b.x1 + pad, y1: b.y1 + pad });
    const ocr = await recognize(crop.image, opts.providers, signal);
    // NFKC: the recognizer's dictionary writes full-width punctuation ("（IA）", "：").
    const read = ocr.lines
      .map((l) => l.text.normalize('NFKC').trim())
      .filter(Boolean)
      .join(' ');
    if (!read) continue;
    const text = how === 'replace' ? read : how === 'glued' ? patchGlued(it.text, read) : patchFromOcr(it.text, read);
    if (text === it.text) continue;
    it.text = text;
    delete it.parts;
    repaired.push(`"${text.length > 60 ? text.slice(0, 57) + '…' : text}"`);
  }
  if (repaired.length)
    warnings.push(
      `text read by OCR where the text layer's characters are not plausible (a broken font map): ${repaired.join(', ')}`,
    );
}

/** Items whose text is not running text: never read again by OCR. */
const NOT_TEXT = new Set<DocItem['cls']>(['picture', 'table', 'formula', 'code']);

function ocrStats(sizes: number[]) {
  const hist = new Map<number, number>();
  for (const s of sizes) hist.set(Math.round(s), (hist.get(Math.round(s)) ?? 0) + 1);
  let body = 10;
  let n = -1;
  for (const [s, c] of hist) if (c > n) [body, n] = [s, c];
  // OCR sizes are noisy: only clearly larger lines count as headings.
  const headingSizes = [...hist.keys()].filter((s) => s >= body * 1.3).sort((a, b) => b - a);
  return { bodySize: body, headingSizes };
}

export async function reparseRegion(
  doc: PdfHandle,
  pageNo: number,
  bbox: BBox,
  cls: RegionClass,
  opts: AnalyzeOptions,
): Promise<DocItem> {
  const page = await getPage(doc, pageNo);
  try {
    const raw: RawPage = await readPage(page, pageNo);
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
    page.cleanup();
  }
}

function cropRgba(
  img: RenderedPage,
  b: BBox,
): { image: { data: Uint8ClampedArray; width: number; height: number }; x0: number; y0: number } {
  const x0 = Math.max(0, Math.floor(b.x0 * img.scale));
  const y0 = Math.max(0, Math.floor(b.y0 * img.scale));
  const x1 = Math.min(img.width, Math.ceil(b.x1 * img.scale));
  const y1 = Math.min(img.height, Math.ceil(b.y1 * img.scale));
  const w = Math.max(1, x1 - x0);
  const h = Math.max(1, y1 - y0);
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++)
    data.set(img.data.subarray(((y0 + y) * img.width + x0) * 4, ((y0 + y) * img.width + x0 + w) * 4), y * w * 4);
  return { image: { data, width: w, height: h }, x0: x0 / img.scale, y0: y0 / img.scale };
}
