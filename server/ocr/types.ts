/**
 * The OCR engine's public data shapes. Coordinates are image pixels, top-left origin.
 *
 * Rotation convention: `rotation` is the clockwise angle by which the page's text appears turned
 * in the input image. The "upright frame" is the input image turned back counter-clockwise by
 * that angle, so its lines run left to right; for 90/270 its width is the input's height.
 */

export interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export type Point = [number, number];
export type Rotation = 0 | 90 | 180 | 270;

/** RGBA pixels, row-major, 4 bytes per pixel (what pdf.js + @napi-rs/canvas render). */
export interface RgbaImage {
  data: Uint8ClampedArray;
  width: number;
  height: number;
}

export interface OcrWord {
  text: string;
  /** Axis-aligned box in the input image. */
  bbox: Box;
  /** The same word in the upright frame. */
  upright: Box;
}

export interface OcrLine {
  text: string;
  /** Mean confidence of the recognized characters, 0–1. */
  score: number;
  /** Axis-aligned box in the input image. */
  bbox: Box;
  /** The detected rotated rectangle in the input image: top-left, top-right, bottom-right, bottom-left as read. */
  quad: Point[];
  /** The same line in the upright (deskewed) frame. */
  upright: Box;
  words: OcrWord[];
}

export interface OcrResult {
  rotation: Rotation;
  /**
   * Clockwise skew of the lines in degrees (a sheet scanned askew), already undone in every
   * `upright` box: the upright frame is turned back by it about its centre. 0 when negligible.
   */
  skew: number;
  /** The onnxruntime execution provider that ran the models. */
  provider: string;
  /** Size of the input image. */
  width: number;
  height: number;
  /** Lines in reading order (upright frame: columns left to right, top to bottom within each). */
  lines: OcrLine[];
  /** How sure the recognizer was of the page (the low-confidence warning reads it). */
  confidence: OcrConfidence;
}

export interface OcrConfidence {
  /** Detected lines the recognizer read any text in, kept or not. */
  read: number;
  /** Of those, lines dropped for a mean character confidence under the engine's floor. */
  dropped: number;
  /** Mean character confidence over every character read on the page (kept and dropped lines), 0–1; 1 when none. */
  meanScore: number;
}

export interface OcrOptions {
  providers?: string[];
  threads?: number;
}

export interface RecognizeOptions {
  signal?: AbortSignal;
  /**
   * Read nothing when detection finds more text boxes than this: a caller looking for a title
   * drawn as a picture skips a chart full of labels without paying for their recognition.
   */
  maxLines?: number;
  /**
   * The image is known to be upright (a crop of a page whose text layer reads upright): no 180°
   * turn is guessed. The orientation classifier votes per line, and a crop holding one line of
   * display type gives it one vote that a reflection under the letters can turn (a banner's
   * mirrored "Foersom" made it read the word upside down, as nothing).
   */
  upright?: boolean;
}
