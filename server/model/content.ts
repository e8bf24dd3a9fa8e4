/**
 * What the pipeline engine hands to the conversion orchestrator for one page. Produced in a
 * page worker (server/worker), consumed on the backend's main thread, so everything here must
 * survive structured cloning (plain data only).
 */
import type { DocItem } from './items';

export interface PageImage {
  /** Absolute path of the PNG in the cache folder. */
  path: string;
  width: number;
  height: number;
}

export interface PageAnalysis {
  /** 1-based page number. */
  page: number;
  /** Page size in points as displayed (after /Rotate). */
  width: number;
  height: number;
  /** Items in reading order, each with `bbox` (points, top-left origin) and `grid` set. */
  items: DocItem[];
  /**
   * Indices into `items` of blocks that may be page headers / footers (top or bottom band of the
   * page). `markFurniture` decides across pages which of them really are.
   */
  furnitureCandidates: number[];
  /** True when the text came from OCR. */
  ocr: boolean;
  /** Degrees the scanned content was rotated to read it upright (0 for text-layer pages). */
  rotation: number;
  /** onnxruntime provider used by OCR on this page. */
  provider?: string;
  image?: PageImage;
  warnings: string[];
}

export interface AnalyzeOptions {
  ocr: 'auto' | 'always' | 'never';
  renderImages: boolean;
  /** Render scale (1 = 72 dpi); default 2. */
  scale: number;
  /** Folder for rendered page images. */
  cacheDir: string;
  /** Folder where picture crops are saved, and the Markdown folder links are relative to. */
  assetsDir?: string;
  markdownDir?: string;
  /** onnxruntime providers for OCR, in order. */
  providers?: string[];
}

/** One run of text on the page: a pdf.js text item, or a word or line from OCR. Points, top-left origin. */
export interface TextSpan {
  text: string;
  bbox: import('../../common/protocol').BBox;
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
  graphics: { bbox: import('../../common/protocol').BBox; kind: 'image' | 'vector' }[];
}
