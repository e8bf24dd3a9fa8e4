/**
 * The page state the page steps pass along (server/pipeline/index.ts), as the layout stages pass
 * theirs (layout/stages/state.ts): what pdf.js read of the page, how it may be read, the layout
 * once a step made it, and the page's warnings in the order the steps wrote them. The page is
 * rendered at OCR scale at most once (`scan`), however many steps read its pixels.
 */
import type { PageAnalysis, AnalyzeOptions, PageImage } from '../model/analysis';
import type { BBox } from '../../common/protocol';
import type { PdfHandle } from '../pdf/open';
import type { PdfPage } from '../pdf/page';
import { renderPage, renderSkipReason, type RenderedPage } from '../pdf/render';
import { textLayerUsable } from '../pdf/text';
import type { LayoutResult } from '../layout/index';
import type { DocItem } from '../model/items';
import type { RawPage } from './pageContent';

/** OCR renders at 200 dpi: PaddleOCR's detector is tuned for text about 20–40 px high. */
export const OCR_SCALE = 200 / 72;

/** A line read by OCR where the text layer has none (missingText.ts), in page points. */
export interface MissingLine {
  text: string;
  bbox: BBox;
  words: { text: string; bbox: BBox }[];
  /** Height of one line when several lines were joined into this one (points). */
  lineHeight?: number;
}

/** How the page's text was read: OCR (its rotation and provider) or the text layer. */
export type ReadBy = Pick<PageAnalysis, 'ocr' | 'rotation' | 'provider'>;

export interface PageWork {
  readonly doc: PdfHandle;
  readonly page: PdfPage;
  readonly pageNo: number;
  readonly opts: AnalyzeOptions;
  /** Polled between steps and inside OCR (see server/worker/cancelFlag.ts). */
  readonly signal?: AbortSignal;
  readonly raw: RawPage;
  readonly warnings: string[];
  /** Why the page is not rendered (too large for the pixel cap): no page image, crops or OCR. */
  readonly tooLarge?: string;
  /** The whole page is read by OCR (no usable text layer, or OCR "always"). */
  readonly wantOcr: boolean;
  /** OCR may read parts of a text-layer page (when not `wantOcr`): it is allowed and the page can be rendered. */
  readonly ocrOk: boolean;
  /** The page rendered at OCR_SCALE, rendered on first use and kept. */
  scan(): Promise<RenderedPage>;
  /** Lines OCR read where the text layer has none (missingText.ts). */
  found: MissingLine[];
  /** The layout, once a step made it (whole-page OCR, or the text layer's). */
  laid?: LayoutResult;
  read: ReadBy;
  /** The page rendered at the output scale, when a step needed its pixels. */
  image?: RenderedPage;
  /** The page image in the cache folder (`renderImages`). */
  pageImage?: PageImage;
}

/** One page step: reads the state, fills its own fields. */
export type PageStep = (w: PageWork) => Promise<void> | void;

export function newPageWork(
  doc: PdfHandle,
  page: PdfPage,
  pageNo: number,
  raw: RawPage,
  opts: AnalyzeOptions,
  signal?: AbortSignal,
): PageWork {
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
  let scan: RenderedPage | undefined;
  return {
    doc,
    page,
    pageNo,
    opts,
    signal,
    raw,
    warnings,
    tooLarge,
    wantOcr,
    ocrOk: !tooLarge && opts.ocr !== 'never',
    scan: async () => (scan ??= await renderPage(doc.doc, page, OCR_SCALE, false)),
    found: [],
    read: { ocr: false, rotation: 0 },
  };
}

/** The layout a step after the layout steps reads (they run in PAGE_STEPS's order). */
export function laidOut(w: PageWork): LayoutResult {
  if (!w.laid) throw new Error(`page ${w.pageNo}: a page step ran before the page was laid out`);
  return w.laid;
}

/** Items whose text is not running text: never read again by OCR. */
export const NOT_TEXT = new Set<DocItem['cls']>(['picture', 'table', 'formula', 'code']);

/** Quoted, each cut to 60 characters, for a page warning. */
export function quoteList(texts: string[]): string {
  return texts.map((t) => `"${t.length > 60 ? t.slice(0, 57) + '…' : t}"`).join(', ');
}
