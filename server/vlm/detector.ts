/**
 * docling-layout-heron (RT-DETRv2) as a source of layout priors for the VLM prompt, when the
 * user has installed it beside the VLM. Input: the page image resized to 640 × 640 with the
 * filter its preprocessor config names (bilinear), as the element type the session declares:
 * the official ONNX export takes **uint8** RGB (`images` [b,3,640,640]; the graph rescales
 * itself and its config says `do_rescale: false`), so raw bytes are fed; a float32 export gets
 * the config's rescale (and mean/std when `do_normalize`). Plus `orig_target_sizes` (width,
 * height). Outputs are read by position as docling does: labels, boxes (x0, y0, x1, y1 in
 * original pixels), scores, one per query, no NMS. Boxes under Docling's default threshold (0.3)
 * are dropped. A detector that fails on a page never fails the page (vlmWorker.ts falls back to
 * the pipeline's items as priors, with a warning).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import sharp from 'sharp';
import type { RegionClass } from '../../common/protocol';
import { toGrid, type DocItem } from '../model/items';
import { createSession, Tensor, type LoadedSession } from '../onnx/runtime';
import { sessionValues } from '../onnx/tensorTypes';
import type { ImageInput } from './preprocess';

/** Heron's 17 labels in output order → Folio's region classes. */
export const HERON_LABELS: RegionClass[] = [
  'caption',
  'footnote',
  'formula',
  'list_item',
  'page_footer',
  'page_header',
  'picture',
  'section_header',
  'table',
  'text',
  'title',
  'document_index',
  'code',
  'checkbox_selected',
  'checkbox_unselected',
  'form',
  'key_value_region',
];

export const DETECTOR_FOLDER_NAMES = ['docling-layout-heron-onnx', 'docling-layout-heron'];

/** The detector's model.onnx under a models root (or the folder itself), when installed. */
export function findDetector(root: string): string | undefined {
  if (existsSync(join(root, 'model.onnx'))) return join(root, 'model.onnx');
  for (const n of DETECTOR_FOLDER_NAMES)
    if (existsSync(join(root, n, 'model.onnx'))) return join(root, n, 'model.onnx');
  return undefined;
}

export class HeronDetector {
  /** Input side (RT-DETR: 640), resize filter, rescale (float inputs only) and optional mean/std. */
  size = 640;
  kernel: 'nearest' | 'linear' | 'cubic' | 'lanczos3' = 'linear';
  rescale = 1 / 255;
  doRescale = true;
  norm: { mean: number[]; std: number[] } | undefined;
  /** Element type of `images` as the session declares it ('uint8' for the official export). */
  inputType = 'float32';

  private constructor(
    private readonly s: LoadedSession,
    readonly threshold = 0.3,
  ) {}

  get provider(): string {
    return this.s.provider;
  }

  static async load(path: string, providers: string[], threads?: number): Promise<HeronDetector> {
    const det = new HeronDetector(await createSession(path, { providers, threads }));
    const { inputs, outputs } = sessionValues(det.s.session);
    for (const n of ['images', 'orig_target_sizes'])
      if (!inputs.has(n)) throw new Error(`${path} has no input "${n}"; it is not a docling-layout-heron export`);
    if (outputs.size < 3)
      throw new Error(
        `${path} has ${outputs.size} outputs; a docling-layout-heron export has labels, boxes and scores`,
      );
    det.inputType = inputs.get('images')!.type;
    if (det.inputType !== 'uint8' && det.inputType !== 'float32')
      throw new Error(`${path} takes ${det.inputType} images; Folio feeds uint8 or float32`);
    // The export's preprocessor_config.json, when shipped, overrides the RT-DETR defaults.
    const cfgPath = join(dirname(path), 'preprocessor_config.json');
    if (existsSync(cfgPath)) {
      try {
        const c = JSON.parse(readFileSync(cfgPath, 'utf8')) as {
          size?: { height?: number; width?: number };
          resample?: number;
          do_rescale?: boolean;
          do_normalize?: boolean;
          image_mean?: number[];
          image_std?: number[];
          rescale_factor?: number;
        };
        if (c.size?.height && c.size.height === c.size.width) det.size = c.size.height;
        // PIL codes: 0 nearest, 2 bilinear, 3 bicubic, 1 Lanczos.
        if (typeof c.resample === 'number')
          det.kernel =
            ({ 0: 'nearest', 1: 'lanczos3', 2: 'linear', 3: 'cubic' } as const)[c.resample as 0 | 1 | 2 | 3] ??
            'linear';
        if (typeof c.rescale_factor === 'number') det.rescale = c.rescale_factor;
        if (c.do_rescale === false) det.doRescale = false;
        if (c.do_normalize && c.image_mean?.length === 3 && c.image_std?.length === 3)
          det.norm = { mean: c.image_mean, std: c.image_std };
      } catch {
        // A damaged config: keep the defaults (the model still loads and runs).
      }
    }
    return det;
  }

  /** Boxes on a page image, as DocItems with `bbox` (points) and `grid`, sorted top to bottom. */
  async detect(image: ImageInput, page: { width: number; height: number }): Promise<DocItem[]> {
    const S = this.size;
    const src =
      'path' in image
        ? sharp(image.path)
        : sharp(Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength), {
            raw: { width: image.width, height: image.height, channels: image.channels ?? 4 },
          });
    const meta = 'path' in image ? await sharp(image.path).metadata() : { width: image.width, height: image.height };
    const W = meta.width ?? 1;
    const Hh = meta.height ?? 1;
    const rgb = await src
      .flatten({ background: '#ffffff' })
      .removeAlpha()
      .resize(S, S, { fit: 'fill', kernel: this.kernel })
      .raw()
      .toBuffer();
    let images: Tensor;
    if (this.inputType === 'uint8') {
      // Raw bytes, channels first: the graph rescales (do_rescale: false in heron's config).
      const px = new Uint8Array(3 * S * S);
      for (let i = 0; i < S * S; i++) for (let c = 0; c < 3; c++) px[c * S * S + i] = rgb[i * 3 + c];
      images = new Tensor('uint8', px, [1, 3, S, S]);
    } else {
      const px = new Float32Array(3 * S * S);
      const k = this.doRescale ? this.rescale : 1;
      const mean = this.norm?.mean ?? [0, 0, 0];
      const std = this.norm?.std ?? [1, 1, 1];
      for (let i = 0; i < S * S; i++)
        for (let c = 0; c < 3; c++) px[c * S * S + i] = (rgb[i * 3 + c] * k - mean[c]) / std[c];
      images = new Tensor('float32', px, [1, 3, S, S]);
    }
    const out = await this.s.session.run({
      images,
      orig_target_sizes: new Tensor('int64', BigInt64Array.from([BigInt(W), BigInt(Hh)]), [1, 2]),
    });
    // By position, as docling reads them: labels, boxes, scores.
    const [lo, bo, so] = this.s.session.outputNames.map((n) => out[n]);
    const labels = lo.data as BigInt64Array | Float32Array;
    const boxes = bo.data as Float32Array;
    const scores = so.data as Float32Array;
    if (boxes.length !== scores.length * 4 || labels.length !== scores.length) {
      throw new Error(
        `the detector returned ${labels.length} labels, ${boxes.length / 4} boxes and ${scores.length} scores`,
      );
    }
    const items: DocItem[] = [];
    for (let q = 0; q < scores.length; q++) {
      const cls = HERON_LABELS[Number(labels[q])];
      if (!cls || scores[q] < this.threshold) continue;
      const sx = page.width / W;
      const sy = page.height / Hh;
      const bbox = {
        x0: Math.max(0, boxes[q * 4] * sx),
        y0: Math.max(0, boxes[q * 4 + 1] * sy),
        x1: Math.min(page.width, boxes[q * 4 + 2] * sx),
        y1: Math.min(page.height, boxes[q * 4 + 3] * sy),
      };
      if (bbox.x1 <= bbox.x0 || bbox.y1 <= bbox.y0) continue;
      items.push({ cls, bbox, grid: toGrid(bbox, page), text: '' });
    }
    return items.sort((a, b) => a.bbox!.y0 - b.bbox!.y0 || a.bbox!.x0 - b.bbox!.x0);
  }

  async release(): Promise<void> {
    await this.s.session.release();
  }
}
