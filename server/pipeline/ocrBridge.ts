/**
 * The one place the pipeline reaches the OCR engine (server/ocr). Kept apart so the rest of the
 * pipeline builds and runs when OCR is unavailable.
 */
import type { BBox } from '../protocol';
import { getOcr } from '../ocr/index';

/** The OCR engine's result, as the pipeline reads it (see server/ocr). */
export interface OcrBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}
export interface OcrWordLike {
  text: string;
  bbox: OcrBox;
  upright: OcrBox;
}
export interface OcrLineLike {
  text: string;
  score: number;
  bbox: OcrBox;
  upright: OcrBox;
  words: OcrWordLike[];
}
export interface OcrResultLike {
  rotation: 0 | 90 | 180 | 270;
  provider: string;
  lines: OcrLineLike[];
}

export async function recognize(
  image: { data: Uint8ClampedArray; width: number; height: number },
  providers?: string[],
): Promise<OcrResultLike> {
  const ocr = await getOcr(providers ? { providers } : {});
  return ocr.recognize(image);
}

export type { BBox };
