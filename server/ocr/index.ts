/**
 * Folio's OCR engine (PaddleOCR v4 ONNX: detection, recognition, 180° direction classifier).
 * Call it from a worker thread: `session.run` blocks the thread it runs on.
 *
 *   const ocr = await getOcr();
 *   const result = await ocr.recognize({ data, width, height });
 */
import { PaddleOcr } from './engine';
import { loadKeys, modelDir, modelPath, MODEL_FILES, openModel } from './models';
import type { OcrOptions } from './types';

export { PaddleOcr } from './engine';
export { mapUprightToOriginal, mapOriginalToUpright } from './geometry';
export type {
  Box,
  OcrConfidence,
  OcrLine,
  OcrOptions,
  OcrResult,
  OcrWord,
  Point,
  RecognizeOptions,
  RgbaImage,
  Rotation,
} from './types';

/** OCR engines of this thread, by options (module state is per worker thread). */
const cache = new Map<string, Promise<PaddleOcr>>();

/** Two intra-op threads: measured ~1.4× faster than one on 2 cores (FACTS.md). */
const DEFAULT_THREADS = 2;

export function getOcr(opts: OcrOptions = {}): Promise<PaddleOcr> {
  const threads = opts.threads ?? DEFAULT_THREADS;
  let dir: string;
  try {
    dir = modelDir();
  } catch (e) {
    return Promise.reject(e);
  }
  const key = JSON.stringify([dir, opts.providers ?? [], threads]);
  let p = cache.get(key);
  if (!p) {
    p = load(dir, opts.providers, threads);
    // A failed load (missing or corrupt file) is not cached: the user may repair and retry.
    p.catch(() => cache.delete(key));
    cache.set(key, p);
  }
  return p;
}

async function load(dir: string, providers: string[] | undefined, threads: number): Promise<PaddleOcr> {
  const detPath = modelPath(dir, MODEL_FILES.det);
  const recPath = modelPath(dir, MODEL_FILES.rec);
  const clsPath = modelPath(dir, MODEL_FILES.cls);
  const keysPath = modelPath(dir, MODEL_FILES.keys);
  const det = await openModel(detPath, providers, threads);
  const rec = await openModel(recPath, providers, threads);
  const cls = await openModel(clsPath, providers, threads);
  const classes = rec.session.outputMetadata?.[0];
  const n = classes && 'shape' in classes ? Number(classes.shape[classes.shape.length - 1]) : undefined;
  const alphabet = loadKeys(keysPath, Number.isFinite(n) ? n : undefined);
  return new PaddleOcr({ det: det.session, rec: rec.session, cls: cls.session, alphabet, provider: rec.provider });
}
