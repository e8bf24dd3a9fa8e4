/**
 * Renders a page with pdf.js on @napi-rs/canvas. The pixel count is capped so a 20,000 × 20,000 pt
 * page cannot exhaust memory: the scale is lowered until the bitmap fits. The cap is never
 * exceeded: a page so large that even MIN_SCALE would break it (a MediaBox of millions of
 * points, which no real page has) is not rendered at all — callers skip its page image, picture
 * crops and OCR with a warning (`renderSkipReason`), and `renderPage` refuses it.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { writeFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist/types/src/display/api';
import { FolioError } from '../errors';
import { FolioErrorCodes } from '../../common/protocol';
import { pdfjsWork } from './guard';
import { loadDeferredSystemFonts } from './systemFonts';

export const MAX_PIXELS = 25_000_000;
/** Canvas backends refuse sides beyond ~32k px; stay well below. */
export const MAX_SIDE = 16_384;
/**
 * Pixels per point below which a render is useless (0.72 dpi: 12 pt text is a tenth of a pixel).
 * The cap only forces a scale this low on pages wider or taller than ~1.6 million points.
 */
export const MIN_SCALE = 0.01;

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

/**
 * The largest scale ≤ `wanted` whose bitmap (sides rounded up, as rendered) stays within
 * MAX_PIXELS and MAX_SIDE; undefined when that scale is below MIN_SCALE or the size is not a
 * finite positive number — such a page is not rendered.
 */
export function cappedScale(widthPt: number, heightPt: number, wanted: number): number | undefined {
  if (!(widthPt > 0 && heightPt > 0 && wanted > 0) || !Number.isFinite(widthPt * heightPt * wanted)) return undefined;
  let s = Math.min(wanted, Math.sqrt(MAX_PIXELS / (widthPt * heightPt)), MAX_SIDE / widthPt, MAX_SIDE / heightPt);
  // Rounding the sides up can add a row or column past the cap: shrink until it holds.
  for (let i = 0; i < 8 && !fits(widthPt, heightPt, s); i++) s *= 0.999;
  if (!fits(widthPt, heightPt, s) || s < MIN_SCALE) return undefined;
  return s;
}

function fits(widthPt: number, heightPt: number, s: number): boolean {
  const w = Math.max(1, Math.ceil(widthPt * s));
  const h = Math.max(1, Math.ceil(heightPt * s));
  return w <= MAX_SIDE && h <= MAX_SIDE && w * h <= MAX_PIXELS;
}

/** Why a page of this size is not rendered (for the page's warnings), or undefined when it can be. */
export function renderSkipReason(widthPt: number, heightPt: number): string | undefined {
  if (cappedScale(widthPt, heightPt, 1) !== undefined) return undefined;
  const size = `${Math.round(widthPt)} × ${Math.round(heightPt)} pt`;
  return `the page is ${size}, too large to render within the ${MAX_PIXELS / 1e6}-megapixel cap: its page image, picture crops and OCR were skipped`;
}

export async function renderPage(
  doc: PDFDocumentProxy,
  page: PDFPageProxy,
  scale: number,
  wantPng: boolean,
): Promise<RenderedPage> {
  const base = page.getViewport({ scale: 1 });
  const s = cappedScale(base.width, base.height, scale);
  if (s === undefined)
    throw new FolioError(
      FolioErrorCodes.TooLarge,
      renderSkipReason(base.width, base.height) ?? 'the page cannot be rendered',
    );
  loadDeferredSystemFonts();
  const viewport = page.getViewport({ scale: s });
  const w = Math.max(1, Math.ceil(viewport.width));
  const h = Math.max(1, Math.ceil(viewport.height));
  const factory = doc.canvasFactory as {
    create(w: number, h: number): { canvas: CanvasLike };
    destroy?(c: unknown): void;
  };
  const cc = factory.create(w, h);
  const canvas = cc.canvas;
  try {
    await pdfjsWork(
      () =>
        page.render({ canvas: canvas as unknown as HTMLCanvasElement, viewport, background: 'rgb(255,255,255)' })
          .promise,
    );
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
