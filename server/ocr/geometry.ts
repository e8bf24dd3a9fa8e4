/**
 * Plane geometry for text boxes: convex hull, minimum-area rotated rectangle (rotating
 * calipers over the hull edges), and the quarter-turn maps between the input image and the
 * upright frame.
 */
import type { Box, Point, Rotation } from './types';

/** Convex hull (Andrew's monotone chain), counter-clockwise in y-down coordinates' mirror; no collinear points. */
export function convexHull(points: Point[]): Point[] {
  if (points.length < 3) return points.slice();
  const pts = points.slice().sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const cross = (o: Point, a: Point, b: Point) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const lower: Point[] = [];
  for (const p of pts) {
    while (lower.length >= 2 && cross(lower[lower.length - 2], lower[lower.length - 1], p) <= 0) lower.pop();
    lower.push(p);
  }
  const upper: Point[] = [];
  for (let i = pts.length - 1; i >= 0; i--) {
    const p = pts[i];
    while (upper.length >= 2 && cross(upper[upper.length - 2], upper[upper.length - 1], p) <= 0) upper.pop();
    upper.push(p);
  }
  lower.pop();
  upper.pop();
  return lower.concat(upper);
}

/** A rotated rectangle: centre, unit axis `u` (the long side), half-lengths along `u` and its normal. */
export interface RotatedRect {
  cx: number;
  cy: number;
  /** Unit vector of the long side. */
  ux: number;
  uy: number;
  /** Half length along u (the long side) and along the normal. */
  halfLong: number;
  halfShort: number;
}

/**
 * The smallest-area rectangle enclosing the points. One of its sides lies on a hull edge
 * (Freeman & Shapira), so trying every hull edge's direction is exact.
 */
export function minAreaRect(points: Point[]): RotatedRect {
  const hull = convexHull(points);
  if (hull.length === 0) return { cx: 0, cy: 0, ux: 1, uy: 0, halfLong: 0, halfShort: 0 };
  if (hull.length < 3) {
    const [a, b] = [hull[0], hull[hull.length - 1]];
    const len = Math.hypot(b[0] - a[0], b[1] - a[1]);
    const ux = len > 0 ? (b[0] - a[0]) / len : 1;
    const uy = len > 0 ? (b[1] - a[1]) / len : 0;
    return { cx: (a[0] + b[0]) / 2, cy: (a[1] + b[1]) / 2, ux, uy, halfLong: len / 2, halfShort: 0 };
  }
  let best: RotatedRect | undefined;
  let bestArea = Infinity;
  for (let i = 0; i < hull.length; i++) {
    const p = hull[i];
    const q = hull[(i + 1) % hull.length];
    const len = Math.hypot(q[0] - p[0], q[1] - p[1]);
    if (len === 0) continue;
    const ex = (q[0] - p[0]) / len;
    const ey = (q[1] - p[1]) / len;
    let minA = Infinity,
      maxA = -Infinity,
      minB = Infinity,
      maxB = -Infinity;
    for (const h of hull) {
      const a = h[0] * ex + h[1] * ey;
      const b = -h[0] * ey + h[1] * ex;
      if (a < minA) minA = a;
      if (a > maxA) maxA = a;
      if (b < minB) minB = b;
      if (b > maxB) maxB = b;
    }
    const area = (maxA - minA) * (maxB - minB);
    if (area < bestArea) {
      bestArea = area;
      const ca = (minA + maxA) / 2;
      const cb = (minB + maxB) / 2;
      const cx = ca * ex - cb * ey;
      const cy = ca * ey + cb * ex;
      const la = (maxA - minA) / 2;
      const lb = (maxB - minB) / 2;
      // Keep u along the long side so callers can read it as the text direction.
      best =
        la >= lb
          ? { cx, cy, ux: ex, uy: ey, halfLong: la, halfShort: lb }
          : { cx, cy, ux: -ey, uy: ex, halfLong: lb, halfShort: la };
    }
  }
  return best!;
}

/**
 * The rectangle's corners as a reader sees them (top-left, top-right, bottom-right, bottom-left),
 * given the direction text runs in the image. `dir` is a unit vector; u is flipped to agree with it.
 */
export function orientedCorners(r: RotatedRect, dir: Point): Point[] {
  let { ux, uy } = r;
  if (ux * dir[0] + uy * dir[1] < 0) [ux, uy] = [-ux, -uy];
  // "Up" for the text is the reading direction turned 90° counter-clockwise on screen (y down).
  const nx = uy;
  const ny = -ux;
  const a = r.halfLong;
  const b = r.halfShort;
  return [
    [r.cx - a * ux + b * nx, r.cy - a * uy + b * ny],
    [r.cx + a * ux + b * nx, r.cy + a * uy + b * ny],
    [r.cx + a * ux - b * nx, r.cy + a * uy - b * ny],
    [r.cx - a * ux - b * nx, r.cy - a * uy - b * ny],
  ];
}

/** Direction text runs in an image whose content is turned clockwise by `rotation`. */
export function readingDirection(rotation: Rotation): Point {
  switch (rotation) {
    case 0:
      return [1, 0];
    case 90:
      return [0, 1];
    case 180:
      return [-1, 0];
    case 270:
      return [0, -1];
  }
}

export function boundsOf(points: Point[]): Box {
  let x0 = Infinity,
    y0 = Infinity,
    x1 = -Infinity,
    y1 = -Infinity;
  for (const [x, y] of points) {
    if (x < x0) x0 = x;
    if (y < y0) y0 = y;
    if (x > x1) x1 = x;
    if (y > y1) y1 = y;
  }
  return { x0, y0, x1, y1 };
}

/** Size of the upright frame for an input of width × height. */
export function uprightSize(rotation: Rotation, width: number, height: number): { width: number; height: number } {
  return rotation === 90 || rotation === 270 ? { width: height, height: width } : { width, height };
}

/** A point of the input image → the upright frame (the input turned counter-clockwise by `rotation`). */
export function originalToUprightPoint(p: Point, rotation: Rotation, width: number, height: number): Point {
  const [x, y] = p;
  switch (rotation) {
    case 0:
      return [x, y];
    case 90:
      return [y, width - x];
    case 180:
      return [width - x, height - y];
    case 270:
      return [height - y, x];
  }
}

/** A point of the upright frame → the input image. `width`/`height` are the INPUT image's. */
export function uprightToOriginalPoint(p: Point, rotation: Rotation, width: number, height: number): Point {
  const [u, v] = p;
  switch (rotation) {
    case 0:
      return [u, v];
    case 90:
      return [width - v, u];
    case 180:
      return [width - u, height - v];
    case 270:
      return [v, height - u];
  }
}

/**
 * An upright-frame box → the input image's axis-aligned box. Exact for quarter turns.
 * `width`/`height` are the input image's size.
 */
export function mapUprightToOriginal(box: Box, rotation: Rotation, width: number, height: number, skewDeg = 0): Box {
  if (skewDeg === 0) {
    return boundsOf([
      uprightToOriginalPoint([box.x0, box.y0], rotation, width, height),
      uprightToOriginalPoint([box.x1, box.y1], rotation, width, height),
    ]);
  }
  // A deskewed box: turn its corners back by the skew, then undo the quarter turn.
  const us = uprightSize(rotation, width, height);
  const corners: Point[] = [
    [box.x0, box.y0],
    [box.x1, box.y0],
    [box.x1, box.y1],
    [box.x0, box.y1],
  ];
  return boundsOf(
    corners.map((p) => uprightToOriginalPoint(turnAbout(p, skewDeg, us.width, us.height), rotation, width, height)),
  );
}

/**
 * The point turned clockwise (on screen, y down) by `deg` about the centre of a `width × height`
 * frame. With a negative angle it undoes a page's skew: the upright frame is deskewed this way.
 */
export function turnAbout(p: Point, deg: number, width: number, height: number): Point {
  if (deg === 0) return p;
  const a = (deg * Math.PI) / 180;
  const c = Math.cos(a),
    s = Math.sin(a);
  const dx = p[0] - width / 2,
    dy = p[1] - height / 2;
  return [width / 2 + dx * c - dy * s, height / 2 + dx * s + dy * c];
}

/**
 * The page's skew in degrees (clockwise on screen): the median baseline angle of the clearly
 * elongated quads (top-left, top-right, bottom-right, bottom-left as read); 0 when none is.
 */
export function skewOf(quads: Point[][]): number {
  const angles: number[] = [];
  for (const [tl, tr, , bl] of quads) {
    const w = Math.hypot(tr[0] - tl[0], tr[1] - tl[1]);
    const h = Math.hypot(bl[0] - tl[0], bl[1] - tl[1]);
    if (w > 3 * h) angles.push(Math.atan2(tr[1] - tl[1], tr[0] - tl[0]));
  }
  if (angles.length === 0) return 0;
  angles.sort((a, b) => a - b);
  return (angles[angles.length >> 1] * 180) / Math.PI;
}

export function mapOriginalToUpright(box: Box, rotation: Rotation, width: number, height: number): Box {
  return boundsOf([
    originalToUprightPoint([box.x0, box.y0], rotation, width, height),
    originalToUprightPoint([box.x1, box.y1], rotation, width, height),
  ]);
}
