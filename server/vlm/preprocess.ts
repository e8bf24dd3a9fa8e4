/**
 * Idefics3 image preprocessing as granite-docling's preprocessor_config.json asks:
 *  1. resize so the longest edge is `size.longest_edge` (2048), keeping the aspect ratio
 *     (transformers' rule: the other side truncated, then made even);
 *  2. when splitting, round both sides up to multiples of the tile (`max_image_size`, 512);
 *  3. cut into rows × cols tiles of 512 and append the whole image resized to 512 × 512
 *     (the "global image"); an image no larger than one tile is used as is, with no grid;
 *  4. rescale by 1/255 and normalize with mean = std = 0.5, channels first.
 * The pixels are resampled as transformers' Pillow path does, with Pillow's own arithmetic
 * (pilResample.ts): step 1, then step 2 from step 1's 8-bit result, then the global image from
 * step 2's (without splitting: step 1, then straight to one tile). The model was trained on those
 * pixels; resampling once, or with another library's kernel, moved values by up to 197 levels
 * next to text strokes. The reference tiles in shared/models/…/reference/ hold this to ±1 level.
 */
import sharp from 'sharp';
import { type BBox, FolioErrorCodes } from '../../common/protocol';
import { FolioError } from '../errors';
import type { VlmConfig } from './config';
import { pilResize, type PilFilter } from './pilResample';

export type ImageInput =
  { path: string } | { data: Uint8ClampedArray | Uint8Array; width: number; height: number; channels?: 3 | 4 };

export interface TileGrid {
  /** Size after step 1 (longest edge). */
  resized: { width: number; height: number };
  /** Size after step 2 (tile multiples); equals `resized` when not splitting. */
  padded: { width: number; height: number };
  rows: number;
  cols: number;
  /** rows × cols + 1 (global image), or 1 when the image fits one tile. */
  images: number;
}

export interface PreprocessedImage {
  grid: TileGrid;
  tileSize: number;
  /** [images, 3, tile, tile], normalized. */
  pixelValues: Float32Array;
}

/** transformers' `_resize_output_size_rescale_to_max_len`: longest edge = maxLen, the other side even. */
export function resizeToLongestEdge(width: number, height: number, maxLen: number): { width: number; height: number } {
  const aspect = width / height;
  let w: number;
  let h: number;
  if (width >= height) {
    w = maxLen;
    h = Math.floor(w / aspect);
    if (h % 2 !== 0) h += 1;
  } else {
    h = maxLen;
    w = Math.floor(h * aspect);
    if (w % 2 !== 0) w += 1;
  }
  return { width: Math.max(1, w), height: Math.max(1, h) };
}

/** Round both sides up to multiples of the tile, keeping the aspect ratio as transformers does. */
export function resizeForVisionEncoder(width: number, height: number, tile: number): { width: number; height: number } {
  const aspect = width / height;
  let w: number;
  let h: number;
  if (width >= height) {
    w = Math.ceil(width / tile) * tile;
    h = Math.ceil(Math.floor(w / aspect) / tile) * tile;
  } else {
    h = Math.ceil(height / tile) * tile;
    w = Math.ceil(Math.floor(h * aspect) / tile) * tile;
  }
  return { width: w, height: h };
}

export function tileGrid(width: number, height: number, pre: VlmConfig['preprocess']): TileGrid {
  const resized = resizeToLongestEdge(width, height, pre.longestEdge);
  if (!pre.splitting)
    return { resized, padded: { width: pre.tileSize, height: pre.tileSize }, rows: 0, cols: 0, images: 1 };
  const padded = resizeForVisionEncoder(resized.width, resized.height, pre.tileSize);
  if (padded.width <= pre.tileSize && padded.height <= pre.tileSize)
    return { resized, padded, rows: 0, cols: 0, images: 1 };
  const rows = Math.ceil(padded.height / pre.tileSize);
  const cols = Math.ceil(padded.width / pre.tileSize);
  return { resized, padded, rows, cols, images: rows * cols + 1 };
}

/**
 * The text that stands for one image in the prompt: per tile `<fake_token_around_image>`
 * `<row_r_col_c>` and `seqLen` × `<image>`, a newline after each row, then the global image
 * `<fake_token_around_image><global-img>` + `seqLen` × `<image>` + `<fake_token_around_image>`.
 */
export function imagePromptString(rows: number, cols: number, seqLen: number): string {
  const img = '<image>'.repeat(seqLen);
  const fake = '<fake_token_around_image>';
  if (rows === 0 && cols === 0) return `${fake}<global-img>${img}${fake}`;
  let s = '';
  for (let r = 1; r <= rows; r++) {
    for (let c = 1; c <= cols; c++) s += `${fake}<row_${r}_col_${c}>${img}`;
    s += '\n';
  }
  return `${s}\n${fake}<global-img>${img}${fake}`;
}

function imageError(what: string, e: unknown): FolioError {
  return new FolioError(
    FolioErrorCodes.ModelError,
    `Cannot read the page image ${what}: ${(e as Error).message ?? e}. Convert the page again.`,
  );
}

/** Decodes the input to a sharp pipeline of an RGB image on white, and its size. */
async function openImage(image: ImageInput, crop?: { left: number; top: number; width: number; height: number }) {
  const label = 'path' in image ? image.path : `(${image.width}×${image.height} raw pixels)`;
  try {
    let s =
      'path' in image
        ? sharp(image.path)
        : sharp(Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength), {
            raw: { width: image.width, height: image.height, channels: image.channels ?? 4 },
          });
    if (crop) s = sharp(await s.extract(crop).png({ compressionLevel: 0 }).toBuffer());
    const meta = crop
      ? { width: crop.width, height: crop.height }
      : 'path' in image
        ? await s.metadata()
        : { width: image.width, height: image.height };
    if (!meta.width || !meta.height) throw new Error('no size');
    return {
      pipeline: s.flatten({ background: '#ffffff' }).removeAlpha(),
      width: meta.width,
      height: meta.height,
      label,
    };
  } catch (e) {
    throw imageError(label, e);
  }
}

/** Pixel rectangle of a box in points, on an image of the page rendered at imageW × imageH. */
export function cropRect(
  bbox: BBox,
  page: { width: number; height: number },
  image: { width: number; height: number },
) {
  const sx = image.width / page.width;
  const sy = image.height / page.height;
  const left = Math.max(0, Math.floor(bbox.x0 * sx));
  const top = Math.max(0, Math.floor(bbox.y0 * sy));
  const right = Math.min(image.width, Math.ceil(bbox.x1 * sx));
  const bottom = Math.min(image.height, Math.ceil(bbox.y1 * sy));
  return { left, top, width: Math.max(1, right - left), height: Math.max(1, bottom - top) };
}

export async function imageSize(image: ImageInput): Promise<{ width: number; height: number }> {
  if (!('path' in image)) return { width: image.width, height: image.height };
  try {
    const m = await sharp(image.path).metadata();
    return { width: m.width ?? 0, height: m.height ?? 0 };
  } catch (e) {
    throw imageError(image.path, e);
  }
}

const PIL_FILTER: Record<VlmConfig['preprocess']['kernel'], PilFilter> = {
  nearest: 'nearest',
  linear: 'bilinear',
  cubic: 'bicubic',
  lanczos3: 'lanczos',
  box: 'box',
  hamming: 'hamming',
};

/** Runs steps 1–4 on an image (or a crop of it). */
export async function preprocessImage(
  image: ImageInput,
  pre: VlmConfig['preprocess'],
  crop?: { left: number; top: number; width: number; height: number },
): Promise<PreprocessedImage> {
  const src = await openImage(image, crop);
  const grid = tileGrid(src.width, src.height, pre);
  const T = pre.tileSize;
  const out = new Float32Array(grid.images * 3 * T * T);
  // One lookup per channel value (rescale + normalize), and one sequential pass over each tile's
  // interleaved RGB rows writing the three planes: ~3× faster than a pass per channel.
  const lut = new Float32Array(3 * 256);
  for (let c = 0; c < 3; c++)
    for (let v = 0; v < 256; v++) lut[c * 256 + v] = (v * pre.rescale - pre.mean[c]) / pre.std[c];
  const TT = T * T;
  const norm = (rgb: Uint8Array, width: number, x0: number, y0: number, index: number) => {
    const base = index * 3 * TT;
    for (let y = 0; y < T; y++) {
      let src = ((y0 + y) * width + x0) * 3;
      const o = base + y * T;
      for (let x = 0; x < T; x++, src += 3) {
        out[o + x] = lut[rgb[src]];
        out[o + TT + x] = lut[256 + rgb[src + 1]];
        out[o + 2 * TT + x] = lut[512 + rgb[src + 2]];
      }
    }
  };
  let rgb: Buffer;
  try {
    rgb = await src.pipeline.raw().toBuffer();
  } catch (e) {
    throw imageError(src.label, e);
  }
  const filter = PIL_FILTER[pre.kernel];
  const resized = pilResize(rgb, src.width, src.height, 3, grid.resized.width, grid.resized.height, filter);
  if (grid.rows === 0) {
    const { width, height } = pre.splitting ? grid.padded : { width: T, height: T };
    const one = pilResize(resized, grid.resized.width, grid.resized.height, 3, width, height, filter);
    norm(one, T, 0, 0, 0);
  } else {
    const { width, height } = grid.padded;
    const big = pilResize(resized, grid.resized.width, grid.resized.height, 3, width, height, filter);
    let i = 0;
    for (let r = 0; r < grid.rows; r++) for (let c = 0; c < grid.cols; c++) norm(big, width, c * T, r * T, i++);
    norm(pilResize(big, width, height, 3, T, T, filter), T, 0, 0, i);
  }
  return { grid, tileSize: T, pixelValues: out };
}
