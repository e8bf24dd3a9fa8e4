/** A rectangle of a rendered page (points) cut out as RGBA pixels, for OCR of one region. */
import type { BBox } from '../../common/protocol';
import type { RenderedPage } from '../pdf/render';

/** The crop and its top-left corner in page points (the box clamped to the page, whole pixels). */
export function cropRgba(
  img: RenderedPage,
  b: BBox,
): { image: { data: Uint8ClampedArray; width: number; height: number }; x0: number; y0: number } {
  const x0 = Math.max(0, Math.floor(b.x0 * img.scale));
  const y0 = Math.max(0, Math.floor(b.y0 * img.scale));
  const x1 = Math.min(img.width, Math.ceil(b.x1 * img.scale));
  const y1 = Math.min(img.height, Math.ceil(b.y1 * img.scale));
  const w = Math.max(1, x1 - x0);
  const h = Math.max(1, y1 - y0);
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++)
    data.set(img.data.subarray(((y0 + y) * img.width + x0) * 4, ((y0 + y) * img.width + x0 + w) * 4), y * w * 4);
  return { image: { data, width: w, height: h }, x0: x0 / img.scale, y0: y0 / img.scale };
}
