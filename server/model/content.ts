/**
 * The raw content of one page, as the PDF's text layer or OCR gives it: text spans, ruling lines
 * and graphics, in points with a top-left origin. What layout reads; plain data only.
 */
import type { BBox } from '../../common/protocol';

/** One run of text on the page: a pdf.js text item, or a word or line from OCR. Points, top-left origin. */
export interface TextSpan {
  text: string;
  bbox: BBox;
  /** Font size in points (from the text matrix; for OCR, the line height). */
  fontSize: number;
  fontName: string;
  monospace: boolean;
  bold?: boolean;
  italic?: boolean;
  /** Writing direction reported by pdf.js. */
  dir?: 'ltr' | 'rtl' | 'ttb';
  /** pdf.js `hasEOL`: the producer ended a line after this item. */
  eol?: boolean;
}

/** A ruling line or thin filled rectangle from the operator list (points, top-left origin). */
export interface Rule {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** What the page offers the layout stage: text, rules and image placements. */
export interface PageContent {
  page: number;
  width: number;
  height: number;
  spans: TextSpan[];
  rules: Rule[];
  /** Placed images (image XObjects) and clusters of vector drawing, as boxes. */
  graphics: { bbox: BBox; kind: 'image' | 'vector' }[];
}
