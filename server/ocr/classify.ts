/**
 * PaddleOCR's text-direction classifier (mobile v2.0): says whether a level crop of a line reads
 * upright (0°) or upside down (180°). Input [N, 3, 48, 192], aspect kept, zero padded.
 */
import { Tensor, type Session } from '../onnx/runtime';
import { frameHeight, frameLength, sampleCrop, type CropFrame } from './crop';
import type { RgbaImage } from './types';

const CLS_H = 48;
const CLS_W = 192;

/** Probability that each crop is upside down. */
export async function upsideDownProbs(session: Session, img: RgbaImage, frames: readonly CropFrame[]): Promise<number[]> {
  if (frames.length === 0) return [];
  const per = 3 * CLS_H * CLS_W;
  const input = new Float32Array(frames.length * per);
  frames.forEach((f, b) => {
    const w = Math.max(8, Math.min(CLS_W, Math.ceil((CLS_H * frameLength(f)) / Math.max(1, frameHeight(f)))));
    sampleCrop(img, f, w, CLS_H, input, b * per, CLS_W);
  });
  const out = await session.run({ x: new Tensor('float32', input, [frames.length, 3, CLS_H, CLS_W]) });
  const p = out[session.outputNames[0]!]!.data as Float32Array;
  return frames.map((_, b) => p[b * 2 + 1]!);
}
