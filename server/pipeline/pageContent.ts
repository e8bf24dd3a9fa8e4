/**
 * One page's raw material from pdf.js: text spans, rules, images, vector clusters and tiny marks.
 * Operator list first: it makes pdf.js load the fonts whose names tell bold and monospace.
 */
import type { PDFPageProxy } from 'pdfjs-dist/types/src/display/api';
import type { BBox } from '../../common/protocol';
import type { PageContent } from '../model/content';
import { pdfjs } from '../pdf/pdfjs';
import { pdfjsWork } from '../pdf/guard';
import { readSpans, type PdfSpan } from '../pdf/text';
import { clusterShapes, readGraphics } from '../pdf/graphics';
import { hiddenTextWarning, leaveOutHidden, matchKey } from '../pdf/invisibleText';
import { readTextRunsDrawn, type FontFacts } from '../pdf/hiddenText';
import { emptyPlacements, oversizedImageWarning, type OversizedImage } from '../pdf/oversizedImages';
import { readFormFieldSpans } from '../pdf/formFields';
import { findGutters } from '../layout/lines/index';
import { textlessRegions, type TextlessRegion } from './textlessRegions';
import { nameSymbols, readLostGlyphs, type GlyphSource, type LostGlyphs } from './lostGlyphs';
import { boundsOf } from '../../common/bbox';

export interface RawPage {
  content: PageContent;
  /** Angle of each span (degrees; 0 = upright). */
  angles: number[];
  /** Tiny vector shapes (bullets drawn as shapes). */
  marks: BBox[];
  /** True when one image covers most of the page (a scan). */
  pageImage: boolean;
  /** Pictures and outline drawings with no text-layer text on them (textlessRegions.ts). */
  textless: TextlessRegion[];
  /** Drawn glyphs that decode to no character and stand for letters or digits (lostGlyphs.ts). */
  lostGlyphs: number;
  /** Placeholders of lost symbol glyphs (lostGlyphs.ts): never filled by OCR. */
  lostSymbols: Set<string>;
  /** The page warning counting the hidden text left out (hiddenText.ts), when any was. */
  hiddenText?: string;
  /** The page warning naming pictures too large to decode (oversizedImages.ts), when any were. */
  oversized?: string;
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

export async function readPage(
  page: PDFPageProxy,
  pageNo: number,
  opts: { keepHiddenText?: boolean; oversizedImages?: readonly OversizedImage[] } = {},
): Promise<RawPage> {
  const lib = await pdfjs();
  const viewport = page.getViewport({ scale: 1 });
  const W = viewport.width;
  const H = viewport.height;
  const ops = await pdfjsWork(() => page.getOperatorList());
  const OPS = lib.OPS as unknown as Record<string, number>;
  const g = readGraphics(ops.fnArray, ops.argsArray, OPS, viewport.transform, W, H);
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
  const marks: BBox[] = [];
  const graphics: PageContent['graphics'] = [];
  const pageArea = W * H;
  let pageImage = false;
  for (const b of g.images) {
    const a = (b.x1 - b.x0) * (b.y1 - b.y0);
    if (a >= pageArea * 0.6) pageImage = true;
    if (b.x1 - b.x0 >= 16 && b.y1 - b.y0 >= 16) graphics.push({ bbox: b, kind: 'image' });
  }
  // Figures side by side in two columns are separate figures: cluster each column's shapes apart.
  const gutters = findGutters(spans, W);
  const side = (x: number) => gutters.filter((gu) => x > (gu.x0 + gu.x1) / 2).length;
  const bySide = new Map<number, typeof g.shapes>();
  for (const sh of g.shapes) {
    const k = side((sh.bbox.x0 + sh.bbox.x1) / 2);
    const list = bySide.get(k);
    if (list) list.push(sh);
    else bySide.set(k, [sh]);
  }
  const clusters = [...bySide.values()].flatMap((list) => clusterShapes(list));
  for (const c of clusters) {
    const w = c.bbox.x1 - c.bbox.x0;
    const h = c.bbox.y1 - c.bbox.y0;
    if (w <= 9 && h <= 9 && w >= 1 && h >= 1) {
      marks.push(c.bbox);
      continue;
    }
    // A figure is many shapes; one or two (a rounded box behind a heading) are decoration.
    if (w < 40 || h < 30 || c.count < 6 || !(c.curved >= 2 || c.count >= 12)) continue;
    // Boxes full of text are text boxes or shaded tables, not figures.
    let textArea = 0;
    for (const s of spans) {
      const cx = (s.bbox.x0 + s.bbox.x1) / 2;
      const cy = (s.bbox.y0 + s.bbox.y1) / 2;
      if (cx >= c.bbox.x0 && cx <= c.bbox.x1 && cy >= c.bbox.y0 && cy <= c.bbox.y1)
        textArea += (s.bbox.x1 - s.bbox.x0) * (s.bbox.y1 - s.bbox.y0);
    }
    if (textArea > w * h * 0.2) continue;
    graphics.push({ bbox: c.bbox, kind: 'vector' });
  }
  // Images inside vector figures (or overlapping them mostly) are one figure: merge them.
  let kept = mergeOverlapping(graphics);
  // Hundreds of figures on one page is one drawing (a map, a plot): keep it as a single box.
  if (kept.length > 40) {
    const b = boundsOf(kept.map((g) => g.bbox));
    kept = [{ kind: 'vector', bbox: b }];
  }
  // Thousands of tiny marks are hatching or glyph-like drawing, not bullets.
  if (marks.length > 500) marks.length = 0;
  return {
    content: { page: pageNo, width: W, height: H, spans, rules: g.rules, graphics: kept },
    angles: spans.map((s) => s.angle),
    marks,
    pageImage,
    textless: textlessRegions(g.images, clusters, spans, W, H),
    lostGlyphs: lost.letters,
    lostSymbols: new Set([...lost.symbols].filter(([, sym]) => !sym).map(([ch]) => ch)),
    ...(hiddenText ? { hiddenText } : {}),
    ...(oversized ? { oversized } : {}),
  };
}

/**
 * The text layer without the text a reader cannot see (invisible, transparent, squeezed, clipped
 * away, in the background's colour or covered), and the warning counting it; all of it when the
 * user keeps hidden text (--keep-hidden-text).
 */
async function visibleSpans(
  page: PDFPageProxy,
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
function fontFacts(page: PDFPageProxy): FontFacts {
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
function glyphSource(page: PDFPageProxy): GlyphSource {
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

function area(b: BBox): number {
  return Math.max(0, b.x1 - b.x0) * Math.max(0, b.y1 - b.y0);
}

/** Share of the smaller box covered by the other. */
function coverage(a: BBox, b: BBox): number {
  const ix = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);
  const iy = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
  if (ix <= 0 || iy <= 0) return 0;
  return (ix * iy) / Math.max(1e-6, Math.min(area(a), area(b)));
}

/** Largest first; each graphic mostly covered by a kept one is merged into it (one pass). */
function mergeOverlapping(list: PageContent['graphics']): PageContent['graphics'] {
  const sorted = [...list].sort((a, b) => area(b.bbox) - area(a.bbox));
  const out: PageContent['graphics'] = [];
  for (const g of sorted) {
    const host = out.find((o) => coverage(o.bbox, g.bbox) >= 0.6);
    if (!host) {
      out.push({ kind: g.kind, bbox: { ...g.bbox } });
      continue;
    }
    const a = host.bbox;
    const b = g.bbox;
    host.bbox = {
      x0: Math.min(a.x0, b.x0),
      y0: Math.min(a.y0, b.y0),
      x1: Math.max(a.x1, b.x1),
      y1: Math.max(a.y1, b.y1),
    };
  }
  return out;
}
