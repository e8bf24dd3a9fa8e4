/**
 * Text recognition with PaddleOCR v4's CRNN/SVTR model: each line is cropped level at height
 * 48, lines of similar width are batched (sorted by width, so padding stays small), and the
 * CTC output is decoded into words with positions along the line.
 */
import { Tensor, type Session } from '../onnx/runtime';
import { frameHeight, frameLength, sampleCrop, type CropFrame } from './crop';
import { ctcGreedy, toWords, type DecodedLine } from './ctc';
import type { RgbaImage } from './types';

export const REC_HEIGHT = 48;
/** Narrowest input: shorter crops are padded (the model was trained on 320-wide inputs). */
export const REC_MIN_WIDTH = 96;
/** Widest crop; a longer line is squeezed (rare: a 48-high crop 3200 wide is ~65 characters). */
export const REC_MAX_WIDTH = 3200;

export interface RecognizedLine extends DecodedLine {
  /** For each word, its span along the line as fractions 0–1 of the crop length. */
  spans: { f0: number; f1: number }[];
}

export interface RecOptions {
  /** Largest batch (default 8). */
  maxBatch?: number;
  /** Widest/narrowest ratio allowed inside one batch (default 1.25). */
  widthSpread?: number;
  signal?: AbortSignal;
}

export function cropWidth(f: CropFrame): number {
  const h = Math.max(1, frameHeight(f));
  return Math.max(8, Math.min(REC_MAX_WIDTH, Math.ceil((REC_HEIGHT * frameLength(f)) / h)));
}

export async function recognizeLines(
  session: Session,
  img: RgbaImage,
  frames: readonly CropFrame[],
  charset: readonly string[],
  opts: RecOptions = {},
): Promise<RecognizedLine[]> {
  const maxBatch = opts.maxBatch ?? 8;
  const spread = opts.widthSpread ?? 1.25;
  const widths = frames.map(cropWidth);
  const order = frames.map((_, i) => i).sort((a, b) => widths[a]! - widths[b]!);
  const results: RecognizedLine[] = new Array(frames.length);
  let i = 0;
  while (i < order.length) {
    opts.signal?.throwIfAborted();
    const batch = [order[i]!];
    const base = Math.max(REC_MIN_WIDTH, widths[order[i]!]!);
    while (
      batch.length < maxBatch &&
      i + batch.length < order.length &&
      Math.max(REC_MIN_WIDTH, widths[order[i + batch.length]!]!) <= base * spread
    ) {
      batch.push(order[i + batch.length]!);
    }
    i += batch.length;
    const padW = Math.max(REC_MIN_WIDTH, ...batch.map((k) => widths[k]!));
    const per = 3 * REC_HEIGHT * padW;
    const input = new Float32Array(batch.length * per);
    batch.forEach((k, b) => sampleCrop(img, frames[k]!, widths[k]!, REC_HEIGHT, input, b * per, padW));
    const out = await session.run({ x: new Tensor('float32', input, [batch.length, 3, REC_HEIGHT, padW]) });
    const t = out[session.outputNames[0]!]!;
    const [, steps, classes] = t.dims as number[];
    const probs = t.data as Float32Array;
    const pxPerStep = padW / steps!;
    batch.forEach((k, b) => {
      const chars = ctcGreedy(probs, b * steps! * classes!, steps!, classes!, charset);
      const line = toWords(chars);
      const w = widths[k]!;
      results[k] = {
        ...line,
        spans: line.words.map((wd) => ({
          f0: Math.min(1, Math.max(0, (wd.s0 * pxPerStep) / w)),
          f1: Math.min(1, Math.max(0, (wd.s1 * pxPerStep) / w)),
        })),
      };
    });
  }
  return results;
}
