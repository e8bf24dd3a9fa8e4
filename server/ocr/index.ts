/**
 * Folio's OCR for scanned pages: PaddleOCR v4 detection + recognition + the 180° direction
 * classifier, on onnxruntime-node (sessions from server/onnx/runtime.ts).
 *
 * `session.run` blocks its thread: call `recognize` from a worker thread, never from the
 * backend's JSON-RPC thread. Sessions are cached per thread (module state is per isolate).
 */
import { FolioError } from '../errors';
import { FolioErrorCodes } from '../protocol';
import { upsideDownProbs } from './classify';
import { detect, type DetectedBox } from './detect';
import { boundsOf, clampBox, minAreaRect, normalizeRect, pointToOriginal, rectCorners } from './geometry';
import { loadModels, type OcrModels } from './models';
import { cropFrameFor, linesRunVertically, turn, uprightCorners, votingBoxes } from './orientation';
import { median, readingOrder, sameLineGroups, type OrderBox } from './order';
import { cropWidth, recognizeLines } from './recognize';
import type { Box, OcrLine, OcrOptions, OcrResult, OcrWord, Point, RecognizeOptions, RgbaImage, Rotation } from './types';

export type { Box, OcrLine, OcrOptions, OcrResult, OcrWord, Point, RecognizeOptions, RgbaImage, Rotation } from './types';
export { mapUprightToOriginal, mapOriginalToUpright, uprightSize } from './geometry';

/** Lines with a lower mean character confidence are dropped as noise (specks, rules, pictures). */
export const MIN_LINE_SCORE = 0.5;
/** Lines the direction classifier looks at to vote on the page's orientation. */
const VOTE_LINES = 12;
/** Images above this many pixels are refused (a 20,000-pt page at 2× would exhaust memory). */
const MAX_PIXELS = 60e6;

/** A line before ordering, in the upright frame. */
interface RawLine {
  corners: Point[]; // upright frame: tl, tr, br, bl as the text reads
  text: string;
  score: number;
  words: OcrWord[];
}

export class PaddleOcr {
  readonly provider: string;

  constructor(private readonly models: OcrModels) {
    this.provider = models.provider;
  }

  async recognize(input: RgbaImage, opts: RecognizeOptions = {}): Promise<OcrResult> {
    const img = prepareImage(input);
    const { signal } = opts;
    signal?.throwIfAborted();
    const boxes = await detect(this.models.det, img);
    signal?.throwIfAborted();
    const rotation = await this.pageRotation(img, boxes);
    signal?.throwIfAborted();
    const { width, height } = img;
    const cornersUp = boxes.map((b) => uprightCorners(b.rect, rotation, width, height));
    const frames = cornersUp.map((c) => cropFrameFor(c, rotation, width, height));
    const rec = await recognizeLines(this.models.rec, img, frames, this.models.charset, { signal });
    const raw: RawLine[] = [];
    rec.forEach((line, i) => {
      if (line.text.trim() === '' || line.score < MIN_LINE_SCORE) return;
      const c = cornersUp[i]!;
      const words = line.words.map((w, k) => {
        const { f0, f1 } = line.spans[k]!;
        const along = (f: number, top: boolean): Point => {
          const a = top ? c[0]! : c[3]!;
          const b = top ? c[1]! : c[2]!;
          return [a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f];
        };
        const quadUp = [along(f0, true), along(f1, true), along(f1, false), along(f0, false)];
        return this.word(w.text, quadUp, rotation, width, height);
      });
      raw.push({ corners: c, text: line.text, score: line.score, words });
    });
    return { rotation, provider: this.provider, width, height, lines: orderAndMerge(raw, rotation, width, height) };
  }

  private word(text: string, quadUp: Point[], rotation: Rotation, width: number, height: number): OcrWord {
    const upW = rotation === 90 || rotation === 270 ? height : width;
    const upH = rotation === 90 || rotation === 270 ? width : height;
    return {
      text,
      upright: clampBox(boundsOf(quadUp), upW, upH),
      bbox: clampBox(boundsOf(quadUp.map((p) => pointToOriginal(p, rotation, width, height))), width, height),
    };
  }

  /**
   * 0/180 versus 90/270 from the lines' directions; then the classifier's majority over the
   * longest lines; when it is split, the recognizer's confidence on both readings.
   */
  private async pageRotation(img: RgbaImage, boxes: DetectedBox[]): Promise<Rotation> {
    const base: Rotation = linesRunVertically(boxes) ? 90 : 0;
    const voters = votingBoxes(boxes, VOTE_LINES);
    if (voters.length === 0) return base;
    const frames = voters.map((b) => cropFrameFor(uprightCorners(b.rect, base, img.width, img.height), base, img.width, img.height));
    const probs = await upsideDownProbs(this.models.cls, img, frames);
    const flipped = probs.filter((p) => p > 0.5).length;
    const share = flipped / probs.length;
    if (share > 0.7) return turn(base, 180);
    if (share < 0.3) return base;
    // Split vote: read the three longest lines both ways and keep the more confident reading.
    const few = voters.slice(0, 3);
    const score = async (r: Rotation) => {
      const f = few.map((b) => cropFrameFor(uprightCorners(b.rect, r, img.width, img.height), r, img.width, img.height));
      const lines = await recognizeLines(this.models.rec, img, f, this.models.charset);
      return lines.reduce((s, l) => s + l.score * Math.max(1, l.text.length), 0);
    };
    const flip = turn(base, 180);
    return (await score(flip)) > (await score(base)) ? flip : base;
  }
}

/** Orders lines on the upright page and merges pieces of one visual line. */
function orderAndMerge(raw: RawLine[], rotation: Rotation, width: number, height: number): OcrLine[] {
  if (raw.length === 0) return [];
  // Deskew: rotate centres by the median slope of the lines so rows are level for the XY-cut.
  const slope = median(raw.map((l) => Math.atan2(l.corners[1]![1] - l.corners[0]![1], l.corners[1]![0] - l.corners[0]![0])));
  const cos = Math.cos(-slope), sin = Math.sin(-slope);
  const boxes: OrderBox[] = raw.map((l) => {
    const pts = l.corners.map(([x, y]) => [x * cos - y * sin, x * sin + y * cos] as Point);
    return boundsOf(pts);
  });
  const order = readingOrder(boxes);
  const groups = sameLineGroups(order.map((i) => boxes[i]!));
  const upW = rotation === 90 || rotation === 270 ? height : width;
  const upH = rotation === 90 || rotation === 270 ? width : height;
  return groups.map((g) => {
    const parts = g.map((k) => raw[order[k]!]!);
    const chars = parts.reduce((s, p) => s + p.text.length, 0) || 1;
    const corners =
      parts.length === 1 ? parts[0]!.corners : rectCorners(normalizeRect(minAreaRect(parts.flatMap((p) => p.corners))));
    const quad = corners.map((p) => pointToOriginal(p, rotation, width, height));
    return {
      text: parts.map((p) => p.text).join(' '),
      score: parts.reduce((s, p) => s + p.score * p.text.length, 0) / chars,
      quad,
      bbox: clampBox(boundsOf(quad), width, height),
      upright: clampBox(boundsOf(corners), upW, upH),
      words: parts.flatMap((p) => p.words),
    };
  });
}

/** Checks the raster and composites any transparency over white (unpainted canvas is 0,0,0,0). */
function prepareImage(img: RgbaImage): RgbaImage {
  const { data, width, height } = img;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width <= 0 || height <= 0) {
    throw new FolioError(FolioErrorCodes.InvalidPdf, `OCR was given an image of ${width} × ${height} pixels; render the page before running OCR.`);
  }
  if (width * height > MAX_PIXELS) {
    throw new FolioError(
      FolioErrorCodes.TooLarge,
      `OCR was given a ${width} × ${height} image (over ${MAX_PIXELS / 1e6} Mpx); render the page at a lower scale.`,
    );
  }
  if (!data || data.length !== width * height * 4) {
    throw new FolioError(
      FolioErrorCodes.InvalidPdf,
      `OCR expected ${width * height * 4} RGBA bytes for ${width} × ${height}, got ${data?.length ?? 0}.`,
    );
  }
  let opaque = true;
  for (let i = 3; i < data.length; i += 4) {
    if (data[i] !== 255) {
      opaque = false;
      break;
    }
  }
  if (opaque) return img;
  const out = new Uint8ClampedArray(data.length);
  for (let i = 0; i < data.length; i += 4) {
    const a = data[i + 3]! / 255;
    out[i] = data[i]! * a + 255 * (1 - a);
    out[i + 1] = data[i + 1]! * a + 255 * (1 - a);
    out[i + 2] = data[i + 2]! * a + 255 * (1 - a);
    out[i + 3] = 255;
  }
  return { data: out, width, height };
}

const cache = new Map<string, Promise<PaddleOcr>>();

/**
 * The OCR engine for this thread, loaded once per set of options. A failed load is not cached,
 * so a repaired install works without restarting the worker.
 */
export function getOcr(opts: OcrOptions = {}): Promise<PaddleOcr> {
  const key = JSON.stringify([opts.providers ?? ['cpu'], opts.threads ?? 2, opts.modelDir ?? '']);
  let p = cache.get(key);
  if (!p) {
    p = loadModels(opts).then((m) => new PaddleOcr(m));
    cache.set(key, p);
    p.catch(() => cache.delete(key));
  }
  return p;
}

/** Width a line's recognizer crop gets (exported for the benchmark's statistics). */
export { cropWidth };
