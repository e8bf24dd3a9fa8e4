/**
 * Plane geometry for text boxes: convex hull, minimum-area rotated rectangle, DB "unclip",
 * and exact mapping between the original image and the upright frame for 90° page turns.
 */
import type { Box, Point, Rotation } from './types';

/** Convex hull (Andrew's monotone chain), counter-clockwise in a y-down frame's math sense. */
export function convexHull(points: readonly Point[]): Point[] {
  const pts = [...points].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  if (pts.length <= 2) return pts;
  const cross = (o: Point, a: Point, b: Point) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const lower: Point[] = [];
  for (const p of pts) {
    while (lower.length >= 2 && cross(lower[lower.length - 2]!, lower[lower.length - 1]!, p) <= 0) lower.pop();
    lower.push(p);
  }
  const upper: Point[] = [];
  for (let i = pts.length - 1; i >= 0; i--) {
    const p = pts[i]!;
    while (upper.length >= 2 && cross(upper[upper.length - 2]!, upper[upper.length - 1]!, p) <= 0) upper.pop();
    upper.push(p);
  }
  lower.pop();
  upper.pop();
  return lower.concat(upper);
}

/** A rotated rectangle: centre, unit direction of its first axis, and full side lengths. */
export interface RotatedRect {
  cx: number;
  cy: number;
  /** Unit vector of the side of length `w`. */
  ux: number;
  uy: number;
  w: number;
  h: number;
}

/**
 * Minimum-area enclosing rectangle of a point set. By the rotating-calipers theorem the optimal
 * rectangle has one side flush with a hull edge, so each hull edge direction is tried and the
 * hull projected on it and its normal. Hulls of text components are small (tens of points),
 * so the quadratic scan is cheaper than the bookkeeping of four moving calipers.
 */
export function minAreaRect(points: readonly Point[]): RotatedRect {
  const hull = convexHull(points);
  if (hull.length === 0) return { cx: 0, cy: 0, ux: 1, uy: 0, w: 0, h: 0 };
  if (hull.length === 1) return { cx: hull[0]![0], cy: hull[0]![1], ux: 1, uy: 0, w: 0, h: 0 };
  let best: RotatedRect | undefined;
  let bestArea = Infinity;
  for (let i = 0; i < hull.length; i++) {
    const a = hull[i]!;
    const b = hull[(i + 1) % hull.length]!;
    const len = Math.hypot(b[0] - a[0], b[1] - a[1]);
    if (len === 0) continue;
    const ux = (b[0] - a[0]) / len;
    const uy = (b[1] - a[1]) / len;
    let minU = Infinity, maxU = -Infinity, minV = Infinity, maxV = -Infinity;
    for (const p of hull) {
      const u = p[0] * ux + p[1] * uy;
      const v = -p[0] * uy + p[1] * ux;
      if (u < minU) minU = u;
      if (u > maxU) maxU = u;
      if (v < minV) minV = v;
      if (v > maxV) maxV = v;
    }
    const area = (maxU - minU) * (maxV - minV);
    if (area < bestArea) {
      bestArea = area;
      const cu = (minU + maxU) / 2;
      const cv = (minV + maxV) / 2;
      best = { cx: cu * ux - cv * uy, cy: cu * uy + cv * ux, ux, uy, w: maxU - minU, h: maxV - minV };
    }
  }
  return best!;
}

/**
 * Normalizes a rectangle so its first axis points within ±45° of +x (text runs along it in the
 * frame the rectangle lives in). Returns the same rectangle with axes swapped / flipped.
 */
export function normalizeRect(r: RotatedRect): RotatedRect {
  let { ux, uy, w, h } = r;
  if (Math.abs(uy) > Math.abs(ux)) {
    // Swap axes: the other side is closer to horizontal.
    const nx = -uy;
    const ny = ux;
    ux = nx;
    uy = ny;
    [w, h] = [h, w];
  }
  if (ux < 0) {
    ux = -ux;
    uy = -uy;
  }
  return { ...r, ux, uy, w, h };
}

/** Corners of a rectangle: top-left, top-right, bottom-right, bottom-left along its first axis. */
export function rectCorners(r: RotatedRect): Point[] {
  const hx = (r.ux * r.w) / 2, hy = (r.uy * r.w) / 2; // half of the first side
  const vx = (-r.uy * r.h) / 2, vy = (r.ux * r.h) / 2; // half of the second side (y-down normal)
  return [
    [r.cx - hx - vx, r.cy - hy - vy],
    [r.cx + hx - vx, r.cy + hy - vy],
    [r.cx + hx + vx, r.cy + hy + vy],
    [r.cx - hx + vx, r.cy - hy + vy],
  ];
}

/**
 * DB's "unclip": the detector's maps shrink text regions, so each box is offset outwards by
 * d = area × ratio / perimeter. For a rectangle, the offset polygon (rounded corners) has as its
 * minimum-area rectangle the same rectangle grown by d on every side, so this is exact.
 */
export function unclipRect(r: RotatedRect, ratio: number): RotatedRect {
  const perimeter = 2 * (r.w + r.h);
  if (perimeter === 0) return r;
  const d = (r.w * r.h * ratio) / perimeter;
  return { ...r, w: r.w + 2 * d, h: r.h + 2 * d };
}

export function boundsOf(points: readonly Point[]): Box {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const [x, y] of points) {
    if (x < x0) x0 = x;
    if (y < y0) y0 = y;
    if (x > x1) x1 = x;
    if (y > y1) y1 = y;
  }
  return { x0, y0, x1, y1 };
}

export function clampBox(b: Box, width: number, height: number): Box {
  const c = (v: number, hi: number) => Math.min(hi, Math.max(0, v));
  return { x0: c(b.x0, width), y0: c(b.y0, height), x1: c(b.x1, width), y1: c(b.y1, height) };
}

/** Size of the upright frame of a `width` × `height` image turned by `rotation`. */
export function uprightSize(rotation: Rotation, width: number, height: number): { width: number; height: number } {
  return rotation === 90 || rotation === 270 ? { width: height, height: width } : { width, height };
}

/** Maps a point of the original image into the upright frame (image turned `rotation`° clockwise). */
export function pointToUpright(p: Point, rotation: Rotation, width: number, height: number): Point {
  const [x, y] = p;
  switch (rotation) {
    case 0:
      return [x, y];
    case 90:
      return [height - y, x];
    case 180:
      return [width - x, height - y];
    case 270:
      return [y, width - x];
  }
}

/** Inverse of `pointToUpright`; `width`/`height` are the ORIGINAL image's. */
export function pointToOriginal(p: Point, rotation: Rotation, width: number, height: number): Point {
  const [u, v] = p;
  switch (rotation) {
    case 0:
      return [u, v];
    case 90:
      return [v, height - u];
    case 180:
      return [width - u, height - v];
    case 270:
      return [width - v, u];
  }
}

/**
 * Maps an axis-aligned box of the upright frame to the original image (exact, since the turn is a
 * multiple of 90°). `width`/`height` are the original image's size.
 */
export function mapUprightToOriginal(box: Box, rotation: Rotation, width: number, height: number): Box {
  const a = pointToOriginal([box.x0, box.y0], rotation, width, height);
  const b = pointToOriginal([box.x1, box.y1], rotation, width, height);
  return { x0: Math.min(a[0], b[0]), y0: Math.min(a[1], b[1]), x1: Math.max(a[0], b[0]), y1: Math.max(a[1], b[1]) };
}

/** Maps an axis-aligned box of the original image into the upright frame. */
export function mapOriginalToUpright(box: Box, rotation: Rotation, width: number, height: number): Box {
  const a = pointToUpright([box.x0, box.y0], rotation, width, height);
  const b = pointToUpright([box.x1, box.y1], rotation, width, height);
  return { x0: Math.min(a[0], b[0]), y0: Math.min(a[1], b[1]), x1: Math.max(a[0], b[0]), y1: Math.max(a[1], b[1]) };
}

/** Point-in-convex-quad test (corners in order, either winding). */
export function insideQuad(q: readonly Point[], x: number, y: number): boolean {
  let sign = 0;
  for (let i = 0; i < 4; i++) {
    const a = q[i]!;
    const b = q[(i + 1) % 4]!;
    const c = (b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0]);
    if (c !== 0) {
      const s = c > 0 ? 1 : -1;
      if (sign === 0) sign = s;
      else if (s !== sign) return false;
    }
  }
  return true;
}
