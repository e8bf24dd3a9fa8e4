/**
 * Text recognition (PaddleOCR v4 SVTR-LCNet, CTC) and the 180° direction classifier, both fed
 * with rotated crops of the detected rectangles.
 */
import { Tensor, type Session } from '../onnx/runtime';
import { ctcGreedy, type DecodedLine } from './ctc';
import { warpInto, type RgbPlanes } from './image';
import type { Point } from './types';

export const REC_HEIGHT = 48;
/** Widest crop fed to the recognizer (80 × its height); longer lines are squeezed. */
const REC_MAX_WIDTH = 48 * 80;
/** The recognizer emits one time step per 8 input columns. */
const REC_STRIDE = 8;

/**
 * Crop width at the recognizer's height: the quad's aspect times `squeeze`. The recognizer's
 * cost grows linearly with width, and it was trained on lines squeezed into 320 px, so narrower
 * crops read as well (see bench/ocr.main.ts --squeeze).
 */
export function recWidth(quad: Point[], squeeze = 1): number {
  const [tl, tr, , bl] = quad;
  const w = Math.hypot(tr[0] - tl[0], tr[1] - tl[1]);
  const h = Math.max(1, Math.hypot(bl[0] - tl[0], bl[1] - tl[1]));
  const width = Math.round((REC_HEIGHT * w * squeeze) / h);
  return Math.min(REC_MAX_WIDTH, Math.max(REC_STRIDE * 2, Math.ceil(width / REC_STRIDE) * REC_STRIDE));
}

export interface RecBatching {
  /** Most crops per run. */
  maxBatch: number;
  /** Largest accepted padding overhead (padded pixels ÷ real pixels) when adding a crop. */
  maxWaste: number;
  /** Horizontal scale of crops relative to their true aspect (see recWidth). */
  squeeze: number;
}

/** One crop per run: the padding of mixed widths costs more than batching saves (FACTS.md). */
export const DEFAULT_BATCHING: RecBatching = { maxBatch: 1, maxWaste: 1.0, squeeze: 1 };

/**
 * Recognizes every quad. Crops are sorted by width and grouped with neighbours of similar width,
 * so padding stays small; results come back in the input order.
 */
export async function recognizeQuads(
  session: Session,
  planes: RgbPlanes,
  quads: Point[][],
  alphabet: string[],
  batching: RecBatching = DEFAULT_BATCHING,
  signal?: AbortSignal,
): Promise<DecodedLine[]> {
  const widths = quads.map((q) => recWidth(q, batching.squeeze));
  const order = quads.map((_, i) => i).sort((a, b) => widths[a] - widths[b]);
  const out: DecodedLine[] = new Array(quads.length);
  let i = 0;
  while (i < order.length) {
    signal?.throwIfAborted();
    const batch = [order[i]];
    let real = widths[order[i]];
    let j = i + 1;
    while (j < order.length && batch.length < batching.maxBatch) {
      const w = widths[order[j]];
      // Sorted ascending, so the new crop sets the padded width.
      if ((w * (batch.length + 1)) / (real + w) > batching.maxWaste) break;
      batch.push(order[j]);
      real += w;
      j++;
    }
    const W = widths[batch[batch.length - 1]];
    const data = new Float32Array(batch.length * 3 * REC_HEIGHT * W);
    batch.forEach((q, b) => warpInto(planes, quads[q], widths[q], REC_HEIGHT, data, b, W));
    const res = await session.run({
      [session.inputNames[0]]: new Tensor('float32', data, [batch.length, 3, REC_HEIGHT, W]),
    });
    const t = res[session.outputNames[0]];
    const [, T, C] = t.dims as number[];
    const probs = t.data as Float32Array;
    batch.forEach((q, b) => {
      const steps = Math.min(T, Math.ceil(widths[q] / REC_STRIDE));
      out[q] = ctcGreedy(probs, b * T * C, steps, C, alphabet);
    });
    i = j;
  }
  return out;
}

const CLS_HEIGHT = 48;
const CLS_WIDTH = 192;

/**
 * Probability that each quad's text is upside down, from PaddleOCR's mobile direction
 * classifier (labels "0" and "180"). Crops keep their aspect up to 192 px wide, then are squeezed.
 */
export async function upsideDown(
  session: Session,
  planes: RgbPlanes,
  quads: Point[][],
  signal?: AbortSignal,
): Promise<number[]> {
  const out: number[] = [];
  const BATCH = 8;
  for (let s = 0; s < quads.length; s += BATCH) {
    signal?.throwIfAborted();
    const part = quads.slice(s, s + BATCH);
    const data = new Float32Array(part.length * 3 * CLS_HEIGHT * CLS_WIDTH);
    part.forEach((q, b) => {
      const w = Math.min(CLS_WIDTH, Math.max(8, Math.ceil((recWidth(q) * CLS_HEIGHT) / REC_HEIGHT)));
      warpInto(planes, q, w, CLS_HEIGHT, data, b, CLS_WIDTH);
    });
    const res = await session.run({
      [session.inputNames[0]]: new Tensor('float32', data, [part.length, 3, CLS_HEIGHT, CLS_WIDTH]),
    });
    const p = res[session.outputNames[0]].data as Float32Array;
    for (let b = 0; b < part.length; b++) out.push(p[b * 2 + 1]);
  }
  return out;
}
