import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  convexHull,
  minAreaRect,
  mapUprightToOriginal,
  originalToUprightPoint,
  uprightToOriginalPoint,
} from '../../server/ocr/geometry';
import { corners, unclip } from '../../server/ocr/detect';
import { readingOrder } from '../../server/ocr/order';
import type { Point, Rotation } from '../../server/ocr/types';
import { rotateQuarter } from './scan';

function rng(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
}

test('minAreaRect recovers a rotated rectangle from points filling it', () => {
  const r = rng(7);
  for (let k = 0; k < 20; k++) {
    const angle = (r() - 0.5) * Math.PI;
    const L = 50 + r() * 400,
      S = 5 + r() * 40;
    const cx = 500 * r(),
      cy = 500 * r();
    const ux = Math.cos(angle),
      uy = Math.sin(angle);
    const pts: Point[] = [];
    for (let i = 0; i < 300; i++) {
      const a = (r() - 0.5) * L,
        b = (r() - 0.5) * S;
      pts.push([cx + a * ux - b * uy, cy + a * uy + b * ux]);
    }
    // The four true corners guarantee the extent.
    for (const [a, b] of [
      [-1, -1],
      [1, -1],
      [1, 1],
      [-1, 1],
    ])
      pts.push([cx + (a * L * ux) / 2 - (b * S * uy) / 2, cy + (a * L * uy) / 2 + (b * S * ux) / 2]);
    const rect = minAreaRect(pts);
    assert.ok(Math.abs(rect.halfLong * 2 - L) < 1e-6 * L + 1e-6, `long side ${rect.halfLong * 2} vs ${L}`);
    assert.ok(Math.abs(rect.halfShort * 2 - S) < 1e-6 * L + 1e-6, `short side ${rect.halfShort * 2} vs ${S}`);
    assert.ok(Math.abs(Math.abs(rect.ux * ux + rect.uy * uy) - 1) < 1e-9, 'direction along the long side');
    // No rotated candidate beats it (brute force over angles).
    const hull = convexHull(pts);
    for (let t = 0; t < 180; t += 0.5) {
      const e = [Math.cos((t * Math.PI) / 180), Math.sin((t * Math.PI) / 180)];
      const a = hull.map((p) => p[0] * e[0] + p[1] * e[1]);
      const b = hull.map((p) => -p[0] * e[1] + p[1] * e[0]);
      const area = (Math.max(...a) - Math.min(...a)) * (Math.max(...b) - Math.min(...b));
      assert.ok(area >= 4 * rect.halfLong * rect.halfShort - 1e-6 * area);
    }
  }
});

test('unclip grows every side by area × ratio / perimeter and keeps the centre', () => {
  const rect = minAreaRect(corners({ cx: 10, cy: 20, ux: 1, uy: 0, halfLong: 50, halfShort: 5 }));
  const g = unclip(rect, 1.5);
  const d = (100 * 10 * 1.5) / 220;
  assert.ok(Math.abs(g.halfLong - (50 + d)) < 1e-9 && Math.abs(g.halfShort - (5 + d)) < 1e-9);
  assert.equal(g.cx, rect.cx);
});

test('upright ↔ original maps agree with turning real pixels by quarter turns', () => {
  // A 5 × 3 image with one marked pixel; turn it clockwise and check where the mark lands.
  const W = 5,
    H = 3;
  const data = new Uint8ClampedArray(W * H * 4);
  const mx = 3,
    my = 1;
  data[(my * W + mx) * 4] = 255;
  for (const q of [1, 2, 3] as const) {
    const img = rotateQuarter({ data, width: W, height: H }, q);
    let found: Point | undefined;
    for (let y = 0; y < img.height; y++)
      for (let x = 0; x < img.width; x++) if (img.data[(y * img.width + x) * 4] === 255) found = [x + 0.5, y + 0.5];
    const rotation = (q * 90) as Rotation; // the turned image's content is turned clockwise by q quarters
    // The original (upright) pixel centre maps onto the found one, and back.
    const o = uprightToOriginalPoint([mx + 0.5, my + 0.5], rotation, img.width, img.height);
    assert.deepEqual(
      o.map((v) => Math.round(v * 2) / 2),
      found,
      `rotation ${rotation}`,
    );
    const u = originalToUprightPoint(found!, rotation, img.width, img.height);
    assert.deepEqual(
      u.map((v) => Math.round(v * 2) / 2),
      [mx + 0.5, my + 0.5],
    );
    const box = mapUprightToOriginal({ x0: mx, y0: my, x1: mx + 1, y1: my + 1 }, rotation, img.width, img.height);
    assert.deepEqual([box.x0 + 0.5, box.y0 + 0.5], found);
  }
});

test('reading order: two columns under a full-width title, read column by column on a skewed page', () => {
  // Title, then a left and a right column of 4 lines each at the same heights, all turned by 1°.
  const lines: Point[][] = [];
  const rect = (x0: number, y0: number, x1: number, y1: number): Point[] => [
    [x0, y0],
    [x1, y0],
    [x1, y1],
    [x0, y1],
  ];
  lines.push(rect(100, 50, 1500, 90));
  for (let i = 0; i < 4; i++) lines.push(rect(100, 150 + i * 45, 760, 185 + i * 45));
  for (let i = 0; i < 4; i++) lines.push(rect(840, 150 + i * 45, 1500, 185 + i * 45));
  const a = (1 * Math.PI) / 180;
  const turned = lines.map((q) =>
    q.map(([x, y]) => [x * Math.cos(a) - y * Math.sin(a), x * Math.sin(a) + y * Math.cos(a)] as Point),
  );
  const boxes = turned.map((q) => ({
    x0: Math.min(...q.map((p) => p[0])),
    y0: Math.min(...q.map((p) => p[1])),
    x1: Math.max(...q.map((p) => p[0])),
    y1: Math.max(...q.map((p) => p[1])),
  }));
  // Shuffle so input order cannot pass for reading order.
  const perm = [5, 0, 8, 2, 7, 1, 4, 6, 3];
  const order = readingOrder(
    perm.map((i) => boxes[i]),
    perm.map((i) => turned[i]),
  ).map((k) => perm[k]);
  assert.deepEqual(order, [0, 1, 2, 3, 4, 5, 6, 7, 8]);
});

test('reading order: a table beside nothing else is read row by row, not column by column', () => {
  // Three columns of short cells on four rows (cells ~4 em wide, line core 18 px).
  const boxes = [];
  for (let r = 0; r < 4; r++)
    for (let c = 0; c < 3; c++)
      boxes.push({ x0: 100 + c * 200, y0: 100 + r * 40, x1: 170 + c * 200, y1: 118 + r * 40 });
  assert.deepEqual(
    readingOrder(boxes),
    boxes.map((_, i) => i),
  );
});
