/**
 * What the pipeline engine hands to the conversion orchestrator for one page, and the options it
 * is run with. Produced in a page worker (server/worker), consumed on the backend's main thread,
 * so everything here must survive structured cloning (plain data only).
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
  /** Keep text a reader cannot see (server/pdf/hiddenText.ts); left out and counted by default. */
  keepHiddenText?: boolean;
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
