/**
 * The one place the pipeline reaches the OCR engine (server/ocr): one OCR engine per worker
 * thread (getOcr caches it), fed the page rendered at 200 dpi as raw RGBA.
 */
import { getOcr, type OcrResult, type RgbaImage } from '../ocr/index';

export type OcrResultLike = OcrResult;

export async function recognize(
  image: RgbaImage,
  providers?: string[],
  signal?: AbortSignal,
  maxLines?: number,
  upright?: boolean,
): Promise<OcrResult> {
  const ocr = await getOcr({ providers });
  return ocr.recognize(image, {
    ...(signal ? { signal } : {}),
    ...(maxLines !== undefined ? { maxLines } : {}),
    ...(upright ? { upright } : {}),
  });
}
