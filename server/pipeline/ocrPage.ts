/**
 * A page read by OCR whole: OCR output → TextSpans for layout. Layout runs in the upright frame
 * (rotation undone, so lines are horizontal); the resulting boxes are mapped back to the displayed
 * page for `bbox`.
 */
import type { BBox } from '../../common/protocol';
import type { PageContent, TextSpan } from '../model/content';
import { toGrid } from '../model/items';
import { mapUprightToOriginal, type Box, type OcrConfidence, type OcrResult } from '../ocr/index';
import { layoutPage } from '../layout/index';
import { recognize } from './ocrBridge';
import type { PageWork } from './state';

/**
 * Page step: a page read by OCR whole (no usable text layer, or OCR "always"), laid out in the
 * upright frame; boxes back on the displayed page.
 */
export async function ocrWholePage(w: PageWork): Promise<void> {
  if (!w.wantOcr) return;
  const { width: W, height: H } = w.raw.content;
  const scan = await w.scan();
  w.signal?.throwIfAborted();
  const ocr = await recognize({ data: scan.data, width: scan.width, height: scan.height }, w.opts.providers, w.signal);
  const os = ocrToSpans(ocr, scan.width, scan.height, scan.scale);
  const doubt = lowOcrConfidenceWarning(ocr.confidence);
  if (doubt) w.warnings.push(doubt);
  const content: PageContent = {
    page: w.pageNo,
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
  w.warnings.push(...laid.warnings);
  for (const it of laid.items) {
    if (!it.bbox) continue;
    it.bbox = os.toDisplayed(it.bbox);
    it.grid = toGrid(it.bbox, { width: W, height: H });
  }
  w.laid = laid;
  w.read = { ocr: true, rotation: ocr.rotation, provider: ocr.provider };
}

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

export interface OcrSpans {
  spans: TextSpan[];
  /** Size of the upright frame in points. */
  width: number;
  height: number;
  /** Upright-frame box (points) → displayed-page box (points). */
  toDisplayed(b: BBox): BBox;
}

export function ocrToSpans(res: OcrResult, imgW: number, imgH: number, scale: number): OcrSpans {
  // The upright frame is the image turned back by the rotation: sideways pages swap sides.
  const sideways = res.rotation === 90 || res.rotation === 270;
  const Wu = sideways ? imgH : imgW;
  const Hu = sideways ? imgW : imgH;
  const spans: TextSpan[] = [];
  const toPt = (b: Box): BBox => ({ x0: b.x0 / scale, y0: b.y0 / scale, x1: b.x1 / scale, y1: b.y1 / scale });
  // A detected line box spans what its letters reach (ascenders, descenders): its height varies
  // with the words. Lines within ±40% of the page's median height share one body size.
  const heights = res.lines.map((l) => (l.upright.y1 - l.upright.y0) / scale).sort((a, b) => a - b);
  const median = heights.length ? heights[Math.floor(heights.length / 2)] : 12;
  // Box heights hardly tell a 12 pt heading from 10 pt text (ascenders and descenders move them
  // more); the width per letter does: larger and bolder type is wider. Lines clearly wider per
  // letter than the page's text get a size in proportion, so headings read as headings.
  const perLetter = (l: (typeof res.lines)[number]) => {
    const ws = l.words.filter((w) => w.text.trim());
    const letters = ws.reduce((a, w) => a + w.text.trim().length, 0);
    return letters >= 4
      ? { w: ws.reduce((a, w) => a + (w.upright.x1 - w.upright.x0), 0) / letters, letters }
      : undefined;
  };
  const widths = res.lines
    .map(perLetter)
    .filter((p): p is { w: number; letters: number } => p !== undefined && p.letters >= 10)
    .map((p) => p.w)
    .sort((a, b) => a - b);
  const bodyWidth = widths.length >= 5 ? widths[Math.floor(widths.length / 2)] : undefined;
  for (const l of res.lines) {
    const lineBox = toPt(l.upright);
    const h = lineBox.y1 - lineBox.y0;
    let fontSize = Math.max(4, h >= median * 0.6 && h <= median * 1.4 ? median : h);
    const p = bodyWidth !== undefined ? perLetter(l) : undefined;
    const ratio = p && bodyWidth ? p.w / bodyWidth : 1;
    if (ratio >= 1.3 && fontSize === median) fontSize = Math.round(median * Math.min(ratio, 2.5) * 2) / 2;
    const words = l.words.length > 0 ? l.words : [{ text: l.text, bbox: l.bbox, upright: l.upright }];
    words.forEach((w, i) => {
      if (!w.text.trim()) return;
      const b = toPt(w.upright);
      // Words share the line's vertical extent so they group into one line.
      spans.push({
        text: w.text,
        bbox: { x0: b.x0, y0: lineBox.y0, x1: b.x1, y1: lineBox.y1 },
        fontSize,
        fontName: 'ocr',
        monospace: false,
        eol: i === words.length - 1,
      });
    });
  }
  return {
    spans,
    width: Wu / scale,
    height: Hu / scale,
    toDisplayed(b: BBox): BBox {
      const o = mapUprightToOriginal(
        { x0: b.x0 * scale, y0: b.y0 * scale, x1: b.x1 * scale, y1: b.y1 * scale },
        res.rotation,
        imgW,
        imgH,
        res.skew,
      );
      return { x0: o.x0 / scale, y0: o.y0 / scale, x1: o.x1 / scale, y1: o.y1 / scale };
    },
  };
}

/**
 * Below this mean character confidence a page's OCR is not to be trusted. Measured (2026-11-27):
 * printed scans 0.958–0.999 (docling's OCR samples, a JBIG2 scan, a Chinese scan, the generated
 * multi-column scans at 150 and 300 dpi); a note in the Breip handwriting font 0.864 (one word in
 * five misread); a Cyrillic form the models cannot read 0.417 and 0.825.
 */
export const LOW_OCR_SCORE = 0.9;
/** …or when more than this share of the lines read had to be dropped under the engine's floor. */
export const LOW_OCR_DROPPED = 0.25;

/**
 * The page warning for OCR the recognizer itself doubts: handwriting, a very poor scan. The
 * pipeline's recognizer reads print; the VLM engine is the answer there (issue 23 class 11).
 */
export function lowOcrConfidenceWarning(c: OcrConfidence): string | undefined {
  if (c.read < 3) return undefined;
  const droppedShare = c.dropped / c.read;
  if (c.meanScore >= LOW_OCR_SCORE && droppedShare <= LOW_OCR_DROPPED) return undefined;
  return (
    `OCR is unsure of this page (mean confidence ${c.meanScore.toFixed(2)}, ${c.dropped} of ${c.read} lines too uncertain to keep): ` +
    'handwriting, a script the OCR models do not read (they read Latin and Chinese) or a poor scan is beyond the pipeline engine; ' +
    'check the text, or convert with the VLM engine (--engine vlm, setting folio.engine)'
  );
}
