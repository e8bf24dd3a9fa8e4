/**
 * Page orientation. Text lines are long and thin, so the detector's rectangles show whether the
 * lines run across the image (0°/180°) or down it (90°/270°); the direction classifier's votes
 * over the longest lines then tell right side up from upside down. When those votes are close,
 * the recognizer's confidence on both readings of a few lines decides.
 */
import { frameFromCorners, type CropFrame } from './crop';
import type { DetectedBox } from './detect';
import { normalizeRect, pointToOriginal, pointToUpright, rectCorners, minAreaRect, type RotatedRect } from './geometry';
import type { Point, Rotation } from './types';

/** A line's rectangle in the upright frame, corners as the text reads (tl, tr, br, bl). */
export function uprightCorners(rect: RotatedRect, rotation: Rotation, width: number, height: number): Point[] {
  const up = rectCorners(rect).map((p) => pointToUpright(p, rotation, width, height));
  const r = normalizeRect(minAreaRect(up));
  const c = rectCorners(r);
  // A line standing upright in the upright frame (an axis label, a spine title) most often reads
  // bottom to top; start it at its bottom-left so the crop comes out level.
  if (r.h >= 1.5 * r.w) return [c[3]!, c[0]!, c[1]!, c[2]!];
  return c;
}

/** The crop frame (in original pixels) for upright-frame corners tl, tr, br, bl. */
export function cropFrameFor(corners: readonly Point[], rotation: Rotation, width: number, height: number): CropFrame {
  const [tl, tr, , bl] = corners.map((p) => pointToOriginal(p, rotation, width, height));
  return frameFromCorners(tl!, tr!, bl!);
}

/** Whether most text (weighted by line length) runs down the image rather than across it. */
export function linesRunVertically(boxes: readonly DetectedBox[]): boolean {
  let across = 0, down = 0;
  for (const { rect } of boxes) {
    const long = Math.max(rect.w, rect.h), short = Math.min(rect.w, rect.h);
    if (long < 2 * short) continue; // single characters say nothing about direction
    // normalizeRect puts `w` on the axis nearest to horizontal.
    if (rect.w >= rect.h) across += long;
    else down += long;
  }
  return down > across;
}

/** The boxes worth voting with: the longest elongated ones. */
export function votingBoxes(boxes: readonly DetectedBox[], n: number): DetectedBox[] {
  return boxes
    .filter(({ rect }) => Math.max(rect.w, rect.h) >= 2.5 * Math.min(rect.w, rect.h))
    .sort((a, b) => Math.max(b.rect.w, b.rect.h) - Math.max(a.rect.w, a.rect.h))
    .slice(0, n);
}

export function turn(r: Rotation, by: 0 | 90 | 180 | 270): Rotation {
  return ((r + by) % 360) as Rotation;
}
