/**
 * One page as pdf.js reads it, in one call for the pipeline (pipeline/pageContent.ts decides what
 * the drawing means): the visible text layer with its symbol glyphs named and the form fields it
 * lacks, the ruling lines, images and vector shapes, the lost glyphs, and the page's warnings about
 * hidden text and pictures too large to decode. Operator list first: it makes pdf.js load the
 * fonts whose names tell bold and monospace.
 */
import type { PDFPageProxy } from 'pdfjs-dist/types/src/display/api';
import { pdfjs } from './pdfjs';
import { pdfjsWork } from './guard';
import type { PdfHandle } from './open';
import { readSpans, type PdfSpan } from './text';
import { readGraphics, type PageGraphics } from './graphics';
import { hiddenTextWarning, leaveOutHidden, matchKey } from './invisibleText';
import { readTextRunsDrawn, type FontFacts } from './hiddenText';
import { emptyPlacements, oversizedImageWarning, type OversizedImage } from './oversizedImages';
import { readFormFieldSpans } from './formFields';
import { nameSymbols, readLostGlyphs, type GlyphSource, type LostGlyphs } from './lostGlyphs';

/** A page of an open PDF (pdf.js's page proxy; only `pdf/` looks inside it). */
export type PdfPage = PDFPageProxy;

export async function getPage(doc: PdfHandle, pageNo: number): Promise<PdfPage> {
  if (!Number.isInteger(pageNo) || pageNo < 1 || pageNo > doc.numPages) {
    throw new Error(`page ${pageNo} does not exist: the document has ${doc.numPages} page(s)`);
  }
  return pdfjsWork(() => doc.doc.getPage(pageNo));
}

/** Frees what pdf.js holds for the page (its operator list, fonts' glyph paths). */
export function releasePage(page: PdfPage): void {
  page.cleanup();
}

export interface PageDrawing {
  width: number;
  height: number;
  /** The text a reader sees, symbols named, then form-field values the layer does not show. */
  spans: PdfSpan[];
  graphics: PageGraphics;
  lost: LostGlyphs;
  /** The page warning counting the hidden text left out (hiddenText.ts), when any was. */
  hiddenText?: string;
  /** The page warning naming pictures too large to decode (oversizedImages.ts), when any were. */
  oversized?: string;
}

export async function readPageDrawing(
  page: PdfPage,
  opts: { keepHiddenText?: boolean; oversizedImages?: readonly OversizedImage[] } = {},
): Promise<PageDrawing> {
  const lib = await pdfjs();
  const viewport = page.getViewport({ scale: 1 });
  const W = viewport.width;
  const H = viewport.height;
  const ops = await pdfjsWork(() => page.getOperatorList());
  const OPS = lib.OPS as unknown as Record<string, number>;
  const graphics = readGraphics(ops.fnArray, ops.argsArray, OPS, viewport.transform, W, H);
  // Glyphs with no Unicode: symbols (checkboxes, bullets) named by their outlines in the text.
  const lost = readLostGlyphs(ops.fnArray, ops.argsArray, OPS, glyphSource(page));
  const seen = await visibleSpans(page, ops, OPS, viewport.transform, W, H, opts.keepHiddenText === true);
  const hiddenText = seen.warning;
  const spans: PdfSpan[] = withSymbols(seen.spans, lost);
  const oversized = opts.oversizedImages?.length
    ? oversizedImageWarning(emptyPlacements(ops.fnArray, OPS), opts.oversizedImages)
    : undefined;
  // Filled-in form fields: their values are in widget annotations, not in the text content.
  spans.push(...notInLayer(await pdfjsWork(() => readFormFieldSpans(page, viewport.transform)), spans));
  return {
    width: W,
    height: H,
    spans,
    graphics,
    lost,
    ...(hiddenText ? { hiddenText } : {}),
    ...(oversized ? { oversized } : {}),
  };
}

/**
 * Form-field spans whose text the text layer does not already show at that place (a form
 * flattened into the page that kept its widgets would otherwise come out twice).
 */
function notInLayer(fields: PdfSpan[], layer: PdfSpan[]): PdfSpan[] {
  return fields.filter((f) => {
    const key = matchKey(f.text);
    return !layer.some((s) => {
      const cx = (s.bbox.x0 + s.bbox.x1) / 2;
      const cy = (s.bbox.y0 + s.bbox.y1) / 2;
      const inside =
        cx >= f.bbox.x0 - 2 && cx <= f.bbox.x1 + 2 && cy >= f.bbox.y0 - f.fontSize && cy <= f.bbox.y1 + f.fontSize;
      const k = matchKey(s.text);
      return inside && k.length > 0 && (key.includes(k) || k.includes(key));
    });
  });
}

/**
 * The text layer without the text a reader cannot see (invisible, transparent, squeezed, clipped
 * away, in the background's colour or covered), and the warning counting it; all of it when the
 * user keeps hidden text (--keep-hidden-text).
 */
async function visibleSpans(
  page: PdfPage,
  ops: { fnArray: number[]; argsArray: unknown[] },
  OPS: Record<string, number>,
  viewportTransform: number[],
  W: number,
  H: number,
  keep: boolean,
): Promise<{ spans: PdfSpan[]; warning?: string }> {
  const layer = await readSpans(page, viewportTransform);
  if (keep) return { spans: layer };
  const runs = readTextRunsDrawn(ops.fnArray, ops.argsArray, OPS, viewportTransform, W, H, fontFacts(page));
  const seen = leaveOutHidden(layer, runs);
  const warning = hiddenTextWarning(seen.left);
  return warning ? { spans: seen.spans, warning } : { spans: seen.spans };
}

/** Font matrices and writing direction of the fonts pdf.js loaded for the page's operator list. */
function fontFacts(page: PdfPage): FontFacts {
  const get = (id: string): { fontMatrix?: number[]; vertical?: boolean } | undefined => {
    try {
      return page.commonObjs.get(id) as { fontMatrix?: number[]; vertical?: boolean } | undefined;
    } catch {
      return undefined; // not loaded
    }
  };
  return {
    fontMatrix: (name) => {
      const m = get(name)?.fontMatrix;
      return Array.isArray(m) && m.length === 6 && Number.isFinite(m[0]) && m[0] !== 0 ? m : undefined;
    },
    vertical: (name) => get(name)?.vertical === true,
  };
}

/** Spans with the symbols their lost or misnamed glyphs draw (lostGlyphs.ts): "☐" for U+0084. */
function withSymbols(spans: PdfSpan[], lost: LostGlyphs): PdfSpan[] {
  return spans.map((s) => {
    const text = nameSymbols(s.text, s.fontName, lost);
    return text === s.text ? s : { ...s, text };
  });
}

/**
 * Font names and glyph outlines from the fonts pdf.js loaded for the page's operator list (in
 * Node pdf.js draws text from glyph paths, which it keeps in commonObjs with fontExtraProperties).
 */
function glyphSource(page: PdfPage): GlyphSource {
  const get = (id: string): unknown => {
    try {
      return page.commonObjs.get(id) as unknown;
    } catch {
      return undefined; // not loaded (a Type3 font, or a font pdf.js failed to load)
    }
  };
  return {
    fontName: (loadedName) => (get(loadedName) as { name?: string } | undefined)?.name ?? '',
    outline: (loadedName, fontChar) =>
      (get(`${loadedName}_path_${fontChar}`) as { path?: ArrayLike<number> } | undefined)?.path,
  };
}
