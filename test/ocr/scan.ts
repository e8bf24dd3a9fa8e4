/**
 * Makes "scans" of real born-digital PDF pages for OCR tests and the benchmark: render with
 * pdf.js at a given dpi, optionally turn by a small skew and add seeded noise, and read the
 * page's own text layer as ground truth.
 */
import { readFileSync } from 'node:fs';
import { pdfjs, pdfjsAssetOptions } from '../../server/pdf/pdfjs';
import type { RgbaImage } from '../../server/ocr/types';

export interface ScanOptions {
  dpi?: number;
  /** Clockwise skew in degrees (a sheet fed slightly askew). */
  skewDeg?: number;
  /** Standard deviation of additive noise, in 0–255 grey levels. */
  noise?: number;
  seed?: number;
}

export interface ScannedPage {
  image: RgbaImage;
  /** The text layer's words (ground truth for recall). */
  words: string[];
  /** The text layer joined in content order. */
  text: string;
}

export async function scanPdfPage(file: string, pageNo: number, opts: ScanOptions = {}): Promise<ScannedPage> {
  const lib = await pdfjs();
  const task = lib.getDocument({ data: new Uint8Array(readFileSync(file)), ...pdfjsAssetOptions() });
  const doc = await task.promise;
  try {
    const page = await doc.getPage(pageNo);
    const tc = await page.getTextContent();
    const text = tc.items.map((i) => ('str' in i ? i.str + (i.hasEOL ? '\n' : ' ') : '')).join('');
    const viewport = page.getViewport({ scale: (opts.dpi ?? 200) / 72 });
    const w = Math.ceil(viewport.width);
    const h = Math.ceil(viewport.height);
    const factory = doc.canvasFactory as {
      create(
        w: number,
        h: number,
      ): {
        canvas: {
          getContext(k: '2d'): {
            getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
          };
        };
      };
    };
    const { canvas } = factory.create(w, h);
    await page.render({ canvas: canvas as unknown as HTMLCanvasElement, viewport, background: 'rgb(255,255,255)' })
      .promise;
    let image: RgbaImage = {
      data: new Uint8ClampedArray(canvas.getContext('2d').getImageData(0, 0, w, h).data),
      width: w,
      height: h,
    };
    if (opts.skewDeg) image = rotateSmall(image, opts.skewDeg);
    if (opts.noise) addNoise(image, opts.noise, opts.seed ?? 1);
    return { image, words: tokenize(text), text };
  } finally {
    await task.destroy();
  }
}

/** Words for recall: letters/digits runs, lower-cased, with punctuation stripped. */
export function tokenize(text: string): string[] {
  return (
    text
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+(?:['’.-][\p{L}\p{N}]+)*/gu) ?? []
  ).map((w) => w.replace(/’/g, "'"));
}

/** Multiset recall: each ground-truth word counts once per occurrence found in the OCR words. */
export function wordRecall(truth: string[], found: string[]): number {
  if (truth.length === 0) return 1;
  const bag = new Map<string, number>();
  for (const w of found) bag.set(w, (bag.get(w) ?? 0) + 1);
  let hit = 0;
  for (const w of truth) {
    const n = bag.get(w) ?? 0;
    if (n > 0) {
      hit++;
      bag.set(w, n - 1);
    }
  }
  return hit / truth.length;
}

/** Turns the image clockwise by a small angle about its centre (bilinear, white outside). */
export function rotateSmall(img: RgbaImage, deg: number): RgbaImage {
  const { width: W, height: H, data } = img;
  const out = new Uint8ClampedArray(W * H * 4);
  const a = (deg * Math.PI) / 180;
  const cos = Math.cos(a),
    sin = Math.sin(a);
  const cx = W / 2,
    cy = H / 2;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      // Inverse map: destination pixel → source position.
      const dx = x + 0.5 - cx,
        dy = y + 0.5 - cy;
      const sx = cos * dx + sin * dy + cx - 0.5;
      const sy = -sin * dx + cos * dy + cy - 0.5;
      const x0 = Math.floor(sx),
        y0 = Math.floor(sy);
      const fx = sx - x0,
        fy = sy - y0;
      const o = (y * W + x) * 4;
      for (let c = 0; c < 3; c++) {
        const px = (xx: number, yy: number) =>
          xx < 0 || yy < 0 || xx >= W || yy >= H ? 255 : data[(yy * W + xx) * 4 + c];
        out[o + c] =
          px(x0, y0) * (1 - fx) * (1 - fy) +
          px(x0 + 1, y0) * fx * (1 - fy) +
          px(x0, y0 + 1) * (1 - fx) * fy +
          px(x0 + 1, y0 + 1) * fx * fy;
      }
      out[o + 3] = 255;
    }
  }
  return { data: out, width: W, height: H };
}

/** Quarter turn clockwise (what a scanner does to a sheet fed sideways). */
export function rotateQuarter(img: RgbaImage, quarters: 1 | 2 | 3): RgbaImage {
  const { width: W, height: H, data } = img;
  const nw = quarters === 2 ? W : H;
  const nh = quarters === 2 ? H : W;
  const out = new Uint8ClampedArray(W * H * 4);
  const src = new Uint32Array(data.buffer, data.byteOffset, W * H);
  const dst = new Uint32Array(out.buffer);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      let nx: number, ny: number;
      if (quarters === 1) [nx, ny] = [H - 1 - y, x];
      else if (quarters === 2) [nx, ny] = [W - 1 - x, H - 1 - y];
      else [nx, ny] = [y, W - 1 - x];
      dst[ny * nw + nx] = src[y * W + x];
    }
  }
  return { data: out, width: nw, height: nh };
}

/** Seeded additive noise (sum of uniforms ≈ Gaussian), like sensor grain on a scan. */
export function addNoise(img: RgbaImage, sigma: number, seed: number): void {
  let s = seed >>> 0 || 1;
  const rnd = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
  const d = img.data;
  for (let i = 0; i < d.length; i += 4) {
    const n = (rnd() + rnd() + rnd() - 1.5) * 2 * sigma;
    d[i] += n;
    d[i + 1] += n;
    d[i + 2] += n;
  }
}
