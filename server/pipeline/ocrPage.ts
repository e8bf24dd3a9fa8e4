/**
 * OCR output → TextSpans for layout. Layout runs in the upright frame (rotation undone, so lines
 * are horizontal); the resulting boxes are mapped back to the displayed page for `bbox`.
 */
import type { BBox } from '../protocol';
import type { TextSpan } from './types';
import { mapUprightToOriginal, type Box, type OcrResult } from '../ocr/index';

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
  // The size comes from the whole detected box, as layout's em-relative word-space and gutter
  // thresholds were tuned with it; only the box drawn for each line is narrowed to its ink.
  const heights = res.lines.map((l) => (l.upright.y1 - l.upright.y0) / scale).sort((a, b) => a - b);
  const median = heights.length ? heights[Math.floor(heights.length / 2)] : 12;
  const bands = rowBands(res.lines.map((l) => inkBand(l.upright)));
  res.lines.forEach((l, k) => {
    const h = (l.upright.y1 - l.upright.y0) / scale;
    const lineBox = toPt(bands[k]);
    const fontSize = Math.max(4, h >= median * 0.6 && h <= median * 1.4 ? median : h);
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
  });
  return {
    spans,
    width: Wu / scale,
    height: Hu / scale,
    toDisplayed(b: BBox): BBox {
      const o = mapUprightToOriginal({ x0: b.x0 * scale, y0: b.y0 * scale, x1: b.x1 * scale, y1: b.y1 * scale }, res.rotation, imgW, imgH, res.skew);
      return { x0: o.x0 / scale, y0: o.y0 / scale, x1: o.x1 / scale, y1: o.y1 / scale };
    },
  };
}

/**
 * Share of a detected line box's height, at top and at bottom, that is the detector's unclip
 * margin rather than ink. DB boxes of 10 pt text at 200 dpi are ~36 px tall on a 33 px line
 * pitch, so neighbouring lines overlap; layout reads an overlap with the line above as "no line
 * above" and took the last line of each narrow column for a page footer (issue 15, three-column
 * scans). Three quarters of the box is about the glyphs' ascender-to-descender extent.
 */
const UNCLIP_MARGIN = 0.125;

function inkBand(b: Box): Box {
  const t = (b.y1 - b.y0) * UNCLIP_MARGIN;
  return { x0: b.x0, y0: b.y0 + t, x1: b.x1, y1: b.y1 - t };
}

/**
 * DB splits a justified line of a narrow column at its widest spaces, and the pieces' boxes sit
 * a few pixels apart vertically. Pieces that follow each other in reading order on one row get
 * one shared band (their mean), so layout puts them in the same row: otherwise a row of another
 * column between their centres could take one of them and cut the line, and its paragraph, in two.
 */
function rowBands(boxes: Box[]): Box[] {
  const out = boxes.map((b) => ({ ...b }));
  let start = 0;
  const flush = (end: number) => {
    if (end - start > 1) {
      let y0 = 0, y1 = 0;
      for (let i = start; i < end; i++) {
        y0 += boxes[i].y0;
        y1 += boxes[i].y1;
      }
      for (let i = start; i < end; i++) {
        out[i].y0 = y0 / (end - start);
        out[i].y1 = y1 / (end - start);
      }
    }
    start = end;
  };
  for (let i = 1; i < boxes.length; i++) {
    const a = boxes[i - 1], b = boxes[i];
    const h = Math.min(a.y1 - a.y0, b.y1 - b.y0);
    const overlap = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
    const gap = b.x0 - a.x1;
    if (!(overlap >= 0.5 * h && gap > -h && gap < 2 * h)) flush(i);
  }
  flush(boxes.length);
  return out;
}
