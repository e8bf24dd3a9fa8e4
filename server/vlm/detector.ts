/**
 * docling-layout-heron (RT-DETRv2) as a source of layout priors for the VLM prompt, when the
 * user has installed it beside the VLM. Input: the page image resized to 640 × 640, rescaled by
 * 1/255 without mean/std normalization (RT-DETR's image processor defaults; an assumption for
 * heron, see docs/vlm.md), plus `orig_target_sizes` (width, height); outputs `labels`, `boxes`
 * (x0, y0, x1, y1 in original pixels) and `scores`, one per query, no NMS. Boxes under Docling's
 * default threshold (0.3) are dropped.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import type { RegionClass } from '../protocol';
import { toGrid, type DocItem } from '../doctags/types';
import { createSession, Tensor, type LoadedSession } from '../onnx/runtime';
import type { ImageInput } from './preprocess';

/** Heron's 17 labels in output order → Folio's region classes. */
export const HERON_LABELS: RegionClass[] = [
  'caption', 'footnote', 'formula', 'list_item', 'page_footer', 'page_header', 'picture', 'section_header',
  'table', 'text', 'title', 'document_index', 'code', 'checkbox_selected', 'checkbox_unselected', 'form', 'key_value_region',
];

export const DETECTOR_FOLDER_NAMES = ['docling-layout-heron-onnx', 'docling-layout-heron'];

/** The detector's model.onnx under a models root (or the folder itself), when installed. */
export function findDetector(root: string): string | undefined {
  if (existsSync(join(root, 'model.onnx'))) return join(root, 'model.onnx');
  for (const n of DETECTOR_FOLDER_NAMES) if (existsSync(join(root, n, 'model.onnx'))) return join(root, n, 'model.onnx');
  return undefined;
}

export class HeronDetector {
  private constructor(private readonly s: LoadedSession, readonly size = 640, readonly threshold = 0.3) {}

  get provider(): string {
    return this.s.provider;
  }

  static async load(path: string, providers: string[], threads?: number): Promise<HeronDetector> {
    return new HeronDetector(await createSession(path, { providers, threads }));
  }

  /** Boxes on a page image, as DocItems with `bbox` (points) and `grid`, sorted top to bottom. */
  async detect(image: ImageInput, page: { width: number; height: number }): Promise<DocItem[]> {
    const S = this.size;
    const src =
      'path' in image
        ? sharp(image.path)
        : sharp(Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength), { raw: { width: image.width, height: image.height, channels: image.channels ?? 4 } });
    const meta = 'path' in image ? await sharp(image.path).metadata() : { width: image.width, height: image.height };
    const W = meta.width ?? 1;
    const Hh = meta.height ?? 1;
    const rgb = await src.flatten({ background: '#ffffff' }).removeAlpha().resize(S, S, { fit: 'fill' }).raw().toBuffer();
    const px = new Float32Array(3 * S * S);
    for (let i = 0; i < S * S; i++) for (let c = 0; c < 3; c++) px[c * S * S + i] = rgb[i * 3 + c] / 255;
    const out = await this.s.session.run({
      images: new Tensor('float32', px, [1, 3, S, S]),
      orig_target_sizes: new Tensor('int64', BigInt64Array.from([BigInt(W), BigInt(Hh)]), [1, 2]),
    });
    const labels = out.labels.data as BigInt64Array;
    const boxes = out.boxes.data as Float32Array;
    const scores = out.scores.data as Float32Array;
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
