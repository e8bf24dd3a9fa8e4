/**
 * The pipeline engine's entry points, called by the page worker (server/worker/pageWorker.ts):
 * open a PDF, analyze a page (text layer or OCR → layout → DocItems) and re-parse one region with
 * a given class. Page furniture is decided across pages on the main thread (convert/furniture.ts).
 */
import { join } from 'node:path';
import type { PDFPageProxy } from 'pdfjs-dist/types/src/display/api';
import type { BBox, RegionClass } from '../../common/protocol';
import { toGrid, type DocItem } from '../model/items';
import type { PageContent, TextSpan } from '../model/content';
import type { AnalyzeOptions, PageAnalysis } from '../model/analysis';
import { openPdf, type PdfHandle } from '../pdf/open';
import { renderPage, renderSkipReason, type RenderedPage } from '../pdf/render';
import { pdfjsWork } from '../pdf/guard';
import { readCachedPng, writeCacheEntry } from '../util/cache';
import { textLayerUsable } from '../pdf/text';
import { layoutPage, layoutRegion } from '../layout/index';
import { readPage, type RawPage } from './pageContent';
import { recognize } from './ocrBridge';
import type { OcrLine } from '../ocr/index';
import { lowOcrConfidenceWarning, ocrToSpans } from './ocrPage';
import { savePictures } from './pictures';
import { cropRgba } from './crop';
import { keepTextOfPictures } from './pictureText';
import { missingTextSpans, readMissingText, type MissingLine } from './missingText';
import { implausibleText, isBadChar, patchFromOcr, patchGlued, type Repair } from './textRepair';
import { isPlaceholder } from './lostGlyphs';

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
    const raw = await readPage(page, pageNo, {
      keepHiddenText: opts.keepHiddenText,
      oversizedImages: doc.oversizedImages,
    });
    const { width: W, height: H } = raw.content;
    const warnings: string[] = [];
    if (raw.hiddenText) warnings.push(raw.hiddenText);
    if (raw.oversized) warnings.push(raw.oversized);
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
      ({ laid, read } = await layoutOcrPage(doc, page, pageNo, opts, warnings, signal));
    } else {
      laid = await layoutTextLayerPage(doc, page, raw, opts, warnings, !tooLarge && opts.ocr !== 'never', signal);
      read = { ocr: false, rotation: 0 };
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

/** A page read by OCR whole (no usable text layer, or OCR "always"); boxes back on the displayed page. */
async function layoutOcrPage(
  doc: PdfHandle,
  page: PDFPageProxy,
  pageNo: number,
  opts: AnalyzeOptions,
  warnings: string[],
  signal?: AbortSignal,
): Promise<{ laid: ReturnType<typeof layoutPage>; read: Pick<PageAnalysis, 'ocr' | 'rotation' | 'provider'> }> {
  const { width: W, height: H } = page.getViewport({ scale: 1 });
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
  const laid = layoutPage({
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
  return { laid, read: { ocr: true, rotation: ocr.rotation, provider: ocr.provider } };
}

/**
 * A page read from its text layer: text the layer lacks read by OCR first (missingText.ts; its
 * lines join the layer's spans, so layout places them), then lines whose characters are
 * implausible read again. `ocrOk`: OCR is allowed and the page can be rendered.
 */
async function layoutTextLayerPage(
  doc: PdfHandle,
  page: PDFPageProxy,
  raw: RawPage,
  opts: AnalyzeOptions,
  warnings: string[],
  ocrOk: boolean,
  signal?: AbortSignal,
): Promise<ReturnType<typeof layoutPage>> {
  let scan: RenderedPage | undefined;
  let found: MissingLine[] = [];
  if (ocrOk && raw.textless.length) {
    scan = await renderPage(doc.doc, page, OCR_SCALE, false);
    signal?.throwIfAborted();
    found = await readMissingText(scan, raw.textless, raw.content.spans, raw.angles, opts.providers, signal);
  }
  const extra = missingTextSpans(found);
  const laid = layoutPage({
    content: extra.length ? { ...raw.content, spans: [...raw.content.spans, ...extra] } : raw.content,
    stats: doc.stats,
    marks: raw.marks,
    angles: extra.length ? [...raw.angles, ...extra.map(() => 0)] : raw.angles,
  });
  warnings.push(...laid.warnings);
  const left = found.length ? keepTextOfPictures(laid.items, found, raw.content) : [];
  const added = found.filter((l) => !left.includes(l));
  if (added.length)
    warnings.push(
      `text read by OCR where the page shows text that its text layer lacks (a picture or outlines): ${quoteList(added.map((l) => l.text))}`,
    );
  const render = async () => (scan ??= await renderPage(doc.doc, page, OCR_SCALE, false));
  if (ocrOk && raw.lostGlyphs > 0)
    await restoreLostGlyphs(render, laid.items, raw.content.spans, raw.lostSymbols, opts, warnings, signal);
  if (ocrOk) await repairImplausibleLines(doc, page, laid.items, opts, warnings, signal, scan, raw.lostSymbols);
  return laid;
}

/**
 * A page whose fonts draw glyphs with no Unicode (lostGlyphs.ts): the page is read by OCR once
 * and each text item holding such a glyph's placeholder (a control character) takes the OCR
 * character aligned to it (patchFromOcr); the page's warnings say which items changed.
 */
const LOST_MIN_SCORE = 0.9;
/** Up to this many items with lost glyphs are read from their own crops, more from one page OCR. */
const LOST_CROP_MAX = 6;

async function restoreLostGlyphs(
  render: () => Promise<RenderedPage>,
  items: DocItem[],
  spans: TextSpan[],
  symbols: Set<string>,
  opts: AnalyzeOptions,
  warnings: string[],
  signal?: AbortSignal,
): Promise<void> {
  // A lost letter's placeholder; a symbol glyph's (a checkbox, a bullet: lostGlyphs.ts) is no
  // letter, and OCR would read it as ")" or "l" or hand it a letter of the word before.
  const lostLetter = (ch: string) => isPlaceholder(ch) && !symbols.has(ch);
  // Only items holding a placeholder: a lost glyph elsewhere costs no OCR.
  const suspects = items.filter(
    (it) => it.bbox && !NOT_TEXT.has(it.cls) && !it.parts?.length && [...it.text].some(lostLetter),
  );
  if (!suspects.length) return;
  const scan = await render();
  // A line the recognizer doubts (an old-style "1" alone read as "N") fills nothing.
  const keep = (ls: OcrLine[], dx: number, dy: number) =>
    ls
      .filter((l) => l.score >= LOST_MIN_SCORE)
      .map((l) => ({
        text: l.text.normalize('NFKC').trim(),
        cx: dx + (l.bbox.x0 + l.bbox.x1) / 2 / scan.scale,
        cy: dy + (l.bbox.y0 + l.bbox.y1) / 2 / scan.scale,
      }));
  // Few items: each from its crop; many: the page once.
  const whole =
    suspects.length > LOST_CROP_MAX
      ? keep(
          (await recognize({ data: scan.data, width: scan.width, height: scan.height }, opts.providers, signal)).lines,
          0,
          0,
        )
      : undefined;
  const changed: string[] = [];
  for (const it of suspects) {
    signal?.throwIfAborted();
    const b = placeholderRows(it.bbox!, spans, lostLetter);
    let lines = whole;
    if (!lines) {
      const crop = cropRgba(scan, { x0: b.x0 - 2, y0: b.y0 - 2, x1: b.x1 + 2, y1: b.y1 + 2 });
      lines = keep((await recognize(crop.image, opts.providers, signal)).lines, crop.x0, crop.y0);
    }
    const read = lines
      .filter((l) => l.cx >= b.x0 - 2 && l.cx <= b.x1 + 2 && l.cy >= b.y0 - 2 && l.cy <= b.y1 + 2)
      .map((l) => l.text)
      .join(' ');
    if (!read) continue;
    const text = patchFromOcr(it.text, read, lostLetter);
    if (text === it.text) continue;
    it.text = text;
    changed.push(text);
  }
  if (changed.length)
    warnings.push(
      `characters read by OCR where the page's fonts draw glyphs that have no text (a font without a character map): ${quoteList(changed)}`,
    );
}

/**
 * The rows of an item that hold a lost glyph's placeholder: the recognizer reads one line of a
 * two-line title ("LaTeX support for Open Sans / Version 1.1") better alone than in the whole
 * item's crop, where it read the old-style "1.1" as "n.s". The item's box when no span says.
 */
function placeholderRows(box: BBox, spans: TextSpan[], lostLetter: (ch: string) => boolean): BBox {
  const inside = spans.filter((s) => {
    const cx = (s.bbox.x0 + s.bbox.x1) / 2;
    const cy = (s.bbox.y0 + s.bbox.y1) / 2;
    return cx >= box.x0 - 1 && cx <= box.x1 + 1 && cy >= box.y0 - 1 && cy <= box.y1 + 1 && [...s.text].some(lostLetter);
  });
  if (!inside.length) return box;
  // The whole rows: a placeholder run of old-style figures is only x-height tall.
  const y0 = Math.min(...inside.map((s) => s.bbox.y0));
  const y1 = Math.max(...inside.map((s) => s.bbox.y1));
  const row = spans.filter((s) => {
    const cx = (s.bbox.x0 + s.bbox.x1) / 2;
    return cx >= box.x0 - 1 && cx <= box.x1 + 1 && s.bbox.y1 > y0 && s.bbox.y0 < y1;
  });
  return {
    x0: box.x0,
    x1: box.x1,
    y0: Math.max(box.y0, Math.min(...row.map((s) => s.bbox.y0))),
    y1: Math.min(box.y1, Math.max(...row.map((s) => s.bbox.y1))),
  };
}

/** Quoted, each cut to 60 characters, for a page warning. */
function quoteList(texts: string[]): string {
  return texts.map((t) => `"${t.length > 60 ? t.slice(0, 57) + '…' : t}"`).join(', ');
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
  rendered?: RenderedPage,
  symbols: Set<string> = new Set(),
): Promise<void> {
  // A lost symbol glyph's placeholder (lostGlyphs.ts) is left as it was: no OCR letter fills it.
  const bad = (ch: string) => isBadChar(ch) && !symbols.has(ch);
  const letters = (text: string) => (symbols.size ? [...text].filter((ch) => !symbols.has(ch)).join('') : text);
  const suspects = items
    // Text with inline math is left alone: its formulas are set in math fonts, whose private-use
    // glyphs are symbols the OCR model does not know, and its parts would have to be rebuilt.
    .map((it) => ({
      it,
      how: it.bbox && !NOT_TEXT.has(it.cls) && !it.parts?.length ? implausibleText(letters(it.text)) : undefined,
    }))
    .filter((x): x is { it: DocItem; how: Repair } => x.how !== undefined)
    .slice(0, REPAIR_MAX_ITEMS);
  if (!suspects.length) return;
  const scan = rendered ?? (await renderPage(doc.doc, page, OCR_SCALE, false));
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
    const text =
      how === 'replace' ? read : how === 'glued' ? patchGlued(it.text, read) : patchFromOcr(it.text, read, bad);
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
    page.cleanup();
  }
}
