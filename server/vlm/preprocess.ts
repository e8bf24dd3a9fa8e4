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
 * next to text strokes. The reference tiles in shared/models/…/reference/ hold this to the level
 * (0 values off).
 *
 * Speed (issue 38): the three resizes run as one chain in WebAssembly SIMD memory
 * (`pilResizeChain`), raw RGB and opaque RGBA pixels skip the image library, and the tiles are
 * written through per-channel lookup tables. The VLM worker also computes the next page's tiles
 * ahead, on another thread, while the current page decodes (preprocessAhead.ts): `preprocessImage`
 * takes such a result when one was started for the same image. The tiles are written into a
 * recycled buffer when the consumer gave one back (`releaseTiles`, tilePool.ts): a fresh 53 MB
 * buffer cost more than the resize.
 */
import sharp from 'sharp';
import { type BBox, FolioErrorCodes } from '../../common/protocol';
import { FolioError } from '../errors';
import type { VlmConfig } from './config';
import { pilResizeTiles, type PilFilter, type ResampleKernel, type RgbImage, type TileWindow } from './pilResample';
import { releaseTileBuffer, threadTilePool, type TileBufferPool } from './tilePool';

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
  /**
   * [images, 3, tile, tile], normalized. Possibly a view of a larger recycled buffer (its
   * `byteOffset` is 0, its `length` exact): read it through the view.
   */
  pixelValues: Float32Array;
}

/**
 * Gives the tiles' buffer back for later pages once nothing reads them any more (the vision
 * encoder's runs over them resolved): to the preprocessing thread when they came from there, else
 * to this thread's pool. `pre.pixelValues` is detached (reads as empty) from then on. Optional: a
 * result never released is collected as any array.
 */
export function releaseTiles(pre: PreprocessedImage): void {
  releaseTileBuffer(pre.pixelValues.buffer);
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

type Crop = { left: number; top: number; width: number; height: number };

/**
 * Raw pixels that need no image library: RGB, or RGBA whose alpha is 255 everywhere it is read
 * (on white that is the same RGB; the 4th byte is then never read as a colour). Undefined when
 * the image must be flattened onto white first.
 */
function rawRgb(image: ImageInput, crop?: Crop): RgbImage | undefined {
  if ('path' in image) return undefined;
  const pix = image.channels ?? 4;
  if (pix !== 3 && pix !== 4) return undefined;
  const { width, height } = image;
  if (image.data.length < width * height * pix) return undefined;
  const data = new Uint8Array(image.data.buffer, image.data.byteOffset, width * height * pix);
  const r = crop ?? { left: 0, top: 0, width, height };
  if (r.left < 0 || r.top < 0 || r.width < 1 || r.height < 1 || r.left + r.width > width || r.top + r.height > height)
    return undefined;
  if (pix === 4) {
    for (let y = r.top; y < r.top + r.height; y++) {
      const end = ((y * width + r.left + r.width) << 2) | 3;
      for (let i = ((y * width + r.left) << 2) | 3; i < end; i += 4) if (data[i] !== 255) return undefined;
    }
  }
  if (!crop) return { data, width, height, pix };
  const rowBytes = r.width * pix;
  const out = new Uint8Array(rowBytes * r.height);
  for (let y = 0; y < r.height; y++) {
    const from = ((r.top + y) * width + r.left) * pix;
    out.set(data.subarray(from, from + rowBytes), y * rowBytes);
  }
  return { data: out, width: r.width, height: r.height, pix };
}

/** Decodes the input (or a crop of it) to RGB pixels on white. */
async function openImage(image: ImageInput, crop?: Crop): Promise<RgbImage> {
  const raw = rawRgb(image, crop);
  if (raw) return raw;
  const label = 'path' in image ? image.path : `(${image.width}×${image.height} raw pixels)`;
  try {
    let s =
      'path' in image
        ? sharp(image.path)
        : sharp(Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength), {
            raw: { width: image.width, height: image.height, channels: image.channels ?? 4 },
          });
    if (crop) s = sharp(await s.extract(crop).png({ compressionLevel: 0 }).toBuffer());
    const { data, info } = await s
      .flatten({ background: '#ffffff' })
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (!info.width || !info.height || info.channels !== 3) throw new Error('no RGB size');
    return { data, width: info.width, height: info.height, pix: 3 };
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

/** Preprocessing computed elsewhere (the look-ahead thread), consulted before computing here. */
export interface PreprocessSource {
  /** The result for this request when one was started for it, else undefined. */
  take(
    image: ImageInput,
    pre: VlmConfig['preprocess'],
    crop?: Crop,
  ): Promise<PreprocessedImage | undefined> | undefined;
}

let ahead: PreprocessSource | undefined;

/** Installs (or removes) this thread's look-ahead source (the VLM worker's, preprocessAhead.ts). */
export function setPreprocessSource(source: PreprocessSource | undefined): void {
  ahead = source;
}

/**
 * Runs steps 1–4 on an image (or a crop of it): the look-ahead's result when it has one for
 * this request, else computed here.
 */
export async function preprocessImage(
  image: ImageInput,
  pre: VlmConfig['preprocess'],
  crop?: Crop,
): Promise<PreprocessedImage> {
  const early = await ahead?.take(image, pre, crop);
  return early ?? preprocessHere(image, pre, crop);
}

/**
 * Steps 1–4 on this thread; `kernel` picks the resampling kernel and `pool` where the tiles'
 * buffer comes from (tests and the benchmark: an empty pool gives a fresh buffer).
 */
export async function preprocessHere(
  image: ImageInput,
  pre: VlmConfig['preprocess'],
  crop?: Crop,
  kernel?: ResampleKernel,
  pool: TileBufferPool = threadTilePool,
): Promise<PreprocessedImage> {
  const src = await openImage(image, crop);
  const grid = tileGrid(src.width, src.height, pre);
  const T = pre.tileSize;
  // One lookup per channel value: rescale + normalize, computed once in double precision.
  const lut = new Float32Array(3 * 256);
  for (let c = 0; c < 3; c++)
    for (let v = 0; v < 256; v++) lut[c * 256 + v] = (v * pre.rescale - pre.mean[c]) / pre.std[c];
  const filter = PIL_FILTER[pre.kernel];
  let pixelValues: Float32Array;
  if (grid.rows === 0) {
    const last = pre.splitting ? grid.padded : { width: T, height: T };
    const out = pool.acquire(3 * T * T);
    pixelValues = pilResizeTiles(src, [grid.resized, last], filter, [{ image: 1, x0: 0, y0: 0 }], T, lut, kernel, out);
  } else {
    // Tiles row-major from step 2's image, then the global image (step 3, from step 2's).
    const tiles: TileWindow[] = [];
    for (let r = 0; r < grid.rows; r++)
      for (let c = 0; c < grid.cols; c++) tiles.push({ image: 1, x0: c * T, y0: r * T });
    tiles.push({ image: 2, x0: 0, y0: 0 });
    // A buffer given back by an earlier page's consumer when one fits; every value is written.
    const out = pool.acquire(tiles.length * 3 * T * T);
    pixelValues = pilResizeTiles(
      src,
      [grid.resized, grid.padded, { width: T, height: T }],
      filter,
      tiles,
      T,
      lut,
      kernel,
      out,
    );
  }
  return { grid, tileSize: T, pixelValues };
}
