/**
 * Renders a page with pdf.js on @napi-rs/canvas. The pixel count is capped so a 20,000 × 20,000 pt
 * page cannot exhaust memory: the scale is lowered until the bitmap fits.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { writeFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist/types/src/display/api';

export const MAX_PIXELS = 25_000_000;
/** Canvas backends refuse sides beyond ~32k px; stay well below. */
const MAX_SIDE = 16_384;

export interface RenderedPage {
  /** RGBA, row-major. */
  data: Uint8ClampedArray;
  width: number;
  height: number;
  /** The scale actually used (pixels per point), after capping. */
  scale: number;
  /** PNG bytes, when asked for. */
  png?: Buffer;
}

interface CanvasLike {
  width: number;
  height: number;
  getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } };
  encode?(format: 'png'): Promise<Buffer>;
  toBuffer?(mime: 'image/png'): Buffer;
}

/** The largest scale ≤ `wanted` that keeps the bitmap within MAX_PIXELS and MAX_SIDE. */
export function cappedScale(widthPt: number, heightPt: number, wanted: number): number {
  let s = wanted;
  const px = widthPt * heightPt * s * s;
  if (px > MAX_PIXELS) s = Math.sqrt(MAX_PIXELS / (widthPt * heightPt));
  s = Math.min(s, MAX_SIDE / widthPt, MAX_SIDE / heightPt);
  return Math.max(s, 0.01);
}

export async function renderPage(doc: PDFDocumentProxy, page: PDFPageProxy, scale: number, wantPng: boolean): Promise<RenderedPage> {
  const base = page.getViewport({ scale: 1 });
  const s = cappedScale(base.width, base.height, scale);
  const viewport = page.getViewport({ scale: s });
  const w = Math.max(1, Math.ceil(viewport.width));
  const h = Math.max(1, Math.ceil(viewport.height));
  const factory = doc.canvasFactory as { create(w: number, h: number): { canvas: CanvasLike }; destroy?(c: unknown): void };
  const cc = factory.create(w, h);
  const canvas = cc.canvas;
  try {
    await page.render({ canvas: canvas as unknown as HTMLCanvasElement, viewport, background: 'rgb(255,255,255)' }).promise;
    const data = canvas.getContext('2d').getImageData(0, 0, w, h).data;
    let png: Buffer | undefined;
    if (wantPng) png = canvas.encode ? await canvas.encode('png') : canvas.toBuffer!('image/png');
    return { data: new Uint8ClampedArray(data), width: w, height: h, scale: s, png };
  } finally {
    factory.destroy?.(cc);
  }
}

/** Writes a file atomically (temp name + rename), creating its folder. */
export async function writeAtomic(path: string, bytes: Buffer): Promise<void> {
  const dir = join(path, '..');
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await writeFile(tmp, bytes);
  await rename(tmp, path);
}
