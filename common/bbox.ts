/** Box arithmetic shared by every room that holds `BBox`es (points, top-left origin). */
import type { BBox } from './protocol';

/** The smallest box holding every box of a non-empty list. */
export function boundsOf(boxes: readonly BBox[]): BBox {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const b of boxes) {
    x0 = Math.min(x0, b.x0);
    y0 = Math.min(y0, b.y0);
    x1 = Math.max(x1, b.x1);
    y1 = Math.max(y1, b.y1);
  }
  return { x0, y0, x1, y1 };
}
