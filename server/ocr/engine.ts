/**
 * The OCR engine: detection → page rotation → rotated crops → recognition → words and reading
 * order. Runs ONNX sessions synchronously inside `session.run`, so call it from a worker thread.
 */
import type { Session } from '../onnx/runtime';
import { detect, DEFAULT_DETECT, type Detection, type DetectOptions } from './detect';
import {
  boundsOf,
  originalToUprightPoint,
  skewOf,
  turnAbout,
  uprightToOriginalPoint,
  uprightSize,
  type RotatedRect,
} from './geometry';
import { checkImage, toPlanes, turnPlanes, type RgbPlanes } from './image';
import { recognizeQuads, upsideDown, DEFAULT_BATCHING, type RecBatching } from './recognizer';
import { splitWords, type DecodedLine } from './ctc';
import { readingOrder } from './order';
import { cutDecoded, gutterCuts, inkColumns } from './columnGaps';
import { inkSkew, MIN_INK_POINTS, textInk } from './skew';
import type { Box, OcrLine, OcrResult, OcrWord, Point, RecognizeOptions, RgbaImage, Rotation } from './types';

export interface EngineModels {
  det: Session;
  rec: Session;
  cls: Session;
  alphabet: string[];
  provider: string;
}

export interface EngineTuning {
  detect: DetectOptions;
  batching: RecBatching;
  /** Lines below this mean character confidence are dropped (PaddleOCR's drop_score). */
  dropScore: number;
  /** Undo the page's skew in the upright frame (off: the quarter turn only, for comparison). */
  deskew: boolean;
  /** Cut lines at the column gaps of the full-resolution page (columnGaps.ts; off for comparison). */
  splitGutters: boolean;
}

/**
 * Skews below this are left alone (a clean render measures a few hundredths of a degree of
 * noise, and its boxes should stay exact); above the maximum the page is not a skewed scan.
 */
const MIN_SKEW_DEG = 0.15;
const MAX_SKEW_DEG = 10;

export const DEFAULT_TUNING: EngineTuning = {
  detect: DEFAULT_DETECT,
  batching: DEFAULT_BATCHING,
  dropScore: 0.5,
  deskew: true,
  splitGutters: true,
};

/** Stage timings of the last run, for the benchmark. */
export interface OcrTimings {
  detectMs: number;
  rotationMs: number;
  recognizeMs: number;
  lines: number;
}

export class PaddleOcr {
  lastTimings: OcrTimings | undefined;

  constructor(
    private readonly models: EngineModels,
    public tuning: EngineTuning = DEFAULT_TUNING,
  ) {}

  get provider(): string {
    return this.models.provider;
  }

  async recognize(img: RgbaImage, opts: RecognizeOptions = {}): Promise<OcrResult> {
    checkImage(img);
    const { signal } = opts;
    signal?.throwIfAborted();
    const t0 = performance.now();
    const W = img.width;
    const H = img.height;
    let planes = toPlanes(img);
    let dets = await detect(this.models.det, planes, this.tuning.detect);
    signal?.throwIfAborted();
    // Work in a frame where lines run horizontally: a sideways page is turned a quarter
    // counter-clockwise and detected again there.
    if (opts.maxLines !== undefined && dets.length > opts.maxLines)
      return {
        rotation: 0,
        skew: 0,
        provider: this.provider,
        width: W,
        height: H,
        lines: [],
        confidence: { read: 0, dropped: 0, meanScore: 1 },
      };
    const base: Rotation = linesRunVertically(dets) ? 90 : 0;
    if (base === 90) {
      planes = turnPlanes(planes, 1);
      dets = await detect(this.models.det, planes, this.tuning.detect);
      signal?.throwIfAborted();
    }
    const t1 = performance.now();
    const flipped = opts.upright ? false : await this.upsideDown(planes, dets, signal);
    const rotation = ((base + (flipped ? 180 : 0)) % 360) as Rotation;
    const t2 = performance.now();
    const workQuads = dets.map((d) => quadFor(d.rect, flipped ? [-1, 0] : [1, 0]));
    const decoded = await recognizeQuads(
      this.models.rec,
      planes,
      workQuads,
      this.models.alphabet,
      this.tuning.batching,
      signal,
    );
    const t3 = performance.now();

    let kept: Kept[] = [];
    const confidence = { read: 0, dropped: 0, meanScore: 1 };
    let chars = 0;
    let scoreSum = 0;
    decoded.forEach((dl, i) => {
      const text = dl.chars.map((c) => c.ch).join('');
      if (text.trim() === '') return;
      confidence.read++;
      chars += dl.chars.length;
      scoreSum += dl.score * dl.chars.length;
      if (dl.score < this.tuning.dropScore) {
        confidence.dropped++;
        return;
      }
      // Work frame → input image: undo the quarter turn.
      kept.push({ quad: workQuads[i].map((p) => uprightToOriginalPoint(p, base, W, H)), dl });
    });
    // The upright frame is also deskewed: on a sheet scanned 0.8° askew a column gutter drifts
    // by more than its own width down the page, and layout finds gutters by straight strips.
    const us = uprightSize(rotation, W, H);
    const measured = pageSkew(kept, img, rotation);
    const skew =
      this.tuning.deskew && Math.abs(measured) >= MIN_SKEW_DEG && Math.abs(measured) <= MAX_SKEW_DEG ? measured : 0;
    const toUpright = (p: Point): Point =>
      turnAbout(originalToUprightPoint(p, rotation, W, H), -skew, us.width, us.height);
    const toSource = (p: Point): Point =>
      uprightToOriginalPoint(turnAbout(p, skew, us.width, us.height), rotation, W, H);
    if (this.tuning.splitGutters) kept = splitAtGutters(kept, img, us, toUpright, toSource);
    const lines = kept.map((k) => this.buildLine(k.quad, k.dl, toUpright, W, H, us));
    const order = lineOrder(kept, toUpright, this.tuning.deskew && Math.abs(measured) <= MAX_SKEW_DEG);
    this.lastTimings = { detectMs: t1 - t0, rotationMs: t2 - t1, recognizeMs: t3 - t2, lines: lines.length };
    if (chars > 0) confidence.meanScore = scoreSum / chars;
    return {
      rotation,
      skew,
      provider: this.provider,
      width: W,
      height: H,
      lines: order.map((i) => lines[i]),
      confidence,
    };
  }

  private buildLine(
    quad: Point[],
    dl: DecodedLine,
    toUpright: (p: Point) => Point,
    W: number,
    H: number,
    us: { width: number; height: number },
  ): OcrLine {
    const up = (b: Point[]): Box => boundsOf(b.map(toUpright));
    const words: OcrWord[] = splitWords(dl).map((w) => {
      const q = subQuad(quad, w.f0, w.f1);
      return { text: w.text, bbox: clampBox(boundsOf(q), W, H), upright: clampBox(up(q), us.width, us.height) };
    });
    return {
      text: words.map((w) => w.text).join(' '),
      score: dl.score,
      bbox: clampBox(boundsOf(quad), W, H),
      quad,
      upright: clampBox(up(quad), us.width, us.height),
      words,
    };
  }

  /**
   * Whether the page is upside down in the work frame, by the 180° classifier's votes over the
   * longest lines (each adds how sure it is, in favour of its side).
   */
  private async upsideDown(planes: RgbPlanes, dets: Detection[], signal?: AbortSignal): Promise<boolean> {
    const longest = dets
      .filter((d) => d.rect.halfLong >= d.rect.halfShort * 2.5)
      .sort((a, b) => b.rect.halfLong - a.rect.halfLong)
      .slice(0, 16);
    if (longest.length === 0) return false;
    const p = await upsideDown(
      this.models.cls,
      planes,
      longest.map((d) => quadFor(d.rect, [1, 0])),
      signal,
    );
    let vote = 0;
    for (const v of p) vote += v - 0.5;
    return vote > 0;
  }
}

type Kept = { quad: Point[]; dl: DecodedLine };

/**
 * The lines' reading order, from their ink cores in the upright frame. Where the ink measured the
 * skew (`inkLevelled`), that frame is level and the rectangles' own angles are not to turn it
 * again: on short pieces of justified lines they read level on a tilted sheet, and once turned
 * back they read the tilt itself (0.61° on LibreOffice's narrow three-column twin, page 4), so
 * re-levelling by them turned the page back by that much and closed a 0.15 in gutter over its height.
 */
function lineOrder(kept: Kept[], toUpright: (p: Point) => Point, inkLevelled: boolean): number[] {
  const cores = kept.map((k) => inkQuad(k.quad, k.dl).map(toUpright));
  return readingOrder(cores.map(boundsOf), inkLevelled ? undefined : cores);
}

/** The image's gray level at pixel i (its green channel; transparent is paper). */
function grayOf(img: RgbaImage): (i: number) => number {
  const d = img.data;
  return (i) => (d[i * 4 + 3] < 128 ? 255 : d[i * 4 + 1]);
}

/**
 * The page's skew in the upright frame: from the ink of its text lines (skew.ts), or from the
 * line rectangles' own angles where there is too little ink to say.
 */
function pageSkew(kept: Kept[], img: RgbaImage, rotation: Rotation): number {
  const W = img.width;
  const H = img.height;
  const quads = kept.map((k) => k.quad);
  const toUpright = (p: Point): Point => originalToUprightPoint(p, rotation, W, H);
  const ink = textInk(quads, W, H, grayOf(img), toUpright);
  if (ink.xs.length < MIN_INK_POINTS) return skewOf(quads.map((q) => q.map(toUpright)));
  return inkSkew(ink, MAX_SKEW_DEG);
}

/**
 * Lines cut where they cross a column gap of the full-resolution page (columnGaps.ts): the
 * detector, working on the page shrunk to 960 px, joins lines across a narrow gutter.
 */
function splitAtGutters(
  kept: Kept[],
  img: RgbaImage,
  us: { width: number; height: number },
  toUpright: (p: Point) => Point,
  toSource: (p: Point) => Point,
): Kept[] {
  if (kept.length < 2) return kept;
  const ink = inkColumns(us.width, us.height, toSource, img.width, img.height, grayOf(img));
  return kept.flatMap((k) => {
    const uq = k.quad.map(toUpright);
    const core = boundsOf(inkQuad(k.quad, k.dl).map(toUpright));
    const box = boundsOf(uq);
    const cuts = gutterCuts(ink, { x0: core.x0, x1: core.x1, y0: box.y0, y1: box.y1 });
    if (cuts.length === 0) return [k];
    const span = uq[1][0] - uq[0][0];
    if (span <= 0) return [k];
    const fractions = cuts.map((x) => (x - uq[0][0]) / span).filter((f) => f > 0 && f < 1);
    return cutDecoded(k.dl, fractions).map((p) => ({ quad: subQuad(k.quad, p.f0, p.f1), dl: p.dl }));
  });
}

/** Whether most text (by length of clearly elongated boxes) runs vertically in the image. */
function linesRunVertically(dets: Detection[]): boolean {
  let horiz = 0;
  let vert = 0;
  for (const { rect } of dets) {
    if (rect.halfLong < rect.halfShort * 2.5) continue; // too short to show a direction
    if (Math.abs(rect.ux) >= Math.abs(rect.uy)) horiz += rect.halfLong;
    else vert += rect.halfLong;
  }
  return vert > horiz;
}

/**
 * The reading-order corners of a detected rectangle. Its side closest to the page's reading
 * direction is the text's baseline, unless the box is clearly elongated across it (a vertical
 * label in the margin), which is then read along its length, bottom to top as Latin side text is.
 */
export function quadFor(r: RotatedRect, dir: Point): Point[] {
  const along = Math.abs(r.ux * dir[0] + r.uy * dir[1]);
  let ux = r.ux,
    uy = r.uy,
    a = r.halfLong,
    b = r.halfShort;
  if (along < Math.SQRT1_2 && r.halfLong < r.halfShort * 1.5) {
    // Short box whose long side is across the reading direction: use the other side.
    [ux, uy] = [-r.uy, r.ux];
    [a, b] = [b, a];
  }
  let d: Point = dir;
  if (Math.abs(ux * dir[0] + uy * dir[1]) < Math.SQRT1_2) d = [dir[1], -dir[0]]; // side text reads "up" the page
  if (ux * d[0] + uy * d[1] < 0) [ux, uy] = [-ux, -uy];
  const nx = uy,
    ny = -ux; // text "up", y pointing down
  return [
    [r.cx - a * ux + b * nx, r.cy - a * uy + b * ny],
    [r.cx + a * ux + b * nx, r.cy + a * uy + b * ny],
    [r.cx + a * ux - b * nx, r.cy + a * uy - b * ny],
    [r.cx - a * ux - b * nx, r.cy - a * uy - b * ny],
  ];
}

/**
 * The part of a line's box the characters occupy: from the first character's firing step to the
 * last's, without the unclip margin (which is wider than a narrow column gutter), and the middle
 * half of its height. Used to find gutters and row gaps for reading order.
 */
function inkQuad(quad: Point[], dl: DecodedLine): Point[] {
  const cs = dl.chars;
  const q = subQuad(quad, cs[0].t0 / dl.steps, Math.min(1, (cs[cs.length - 1].t1 + 1) / dl.steps));
  const [tl, tr, br, bl] = q;
  const mix = (a: Point, b: Point, f: number): Point => [a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f];
  return [mix(tl, bl, 0.25), mix(tr, br, 0.25), mix(tr, br, 0.75), mix(tl, bl, 0.75)];
}

/** The part of a quad between fractions f0 and f1 of its length. */
function subQuad(q: Point[], f0: number, f1: number): Point[] {
  const [tl, tr, br, bl] = q;
  const lerp = (p: Point, s: Point, f: number): Point => [p[0] + (s[0] - p[0]) * f, p[1] + (s[1] - p[1]) * f];
  return [lerp(tl, tr, f0), lerp(tl, tr, f1), lerp(bl, br, f1), lerp(bl, br, f0)];
}

function clampBox(b: Box, W: number, H: number): Box {
  const c = (v: number, m: number) => Math.min(m, Math.max(0, v));
  return { x0: c(b.x0, W), y0: c(b.y0, H), x1: c(b.x1, W), y1: c(b.y1, H) };
}
