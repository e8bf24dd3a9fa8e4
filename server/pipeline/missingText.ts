/**
 * Text the page shows but its text layer lacks (issue 31 class 2): a title set as a picture (an
 * equity report's headings are images with a text-shaped soft mask), a banner or logo whose
 * words are pixels, a university logo whose words are vector outlines. The regions where such
 * text can be — pictures and clusters of curved paths with no text-layer characters on them
 * (textlessRegions) — are read by OCR from the page rendered at OCR_SCALE, and only lines a
 * reader would accept are kept: confident, word-shaped, few per region (a chart full of labels
 * or a photograph, photoCrop.ts, is left alone), and not over text the layer already has.
 */
import type { BBox } from '../../common/protocol';
import type { TextSpan } from '../model/content';
import type { RenderedPage } from '../pdf/render';
import { recognize } from './ocrBridge';
import { cropRgba } from './crop';
import type { TextlessRegion } from './textlessRegions';
import { boundsOf } from '../../common/bbox';
import { isPhotograph } from './photoCrop';
import type { MissingLine, PageWork } from './state';

export type { MissingLine } from './state';

/** At most this many regions of a page are read (each is one OCR call on its crop). */
const MAX_REGIONS = 8;
/** A region with more detected text boxes than this is a figure with labels, not a title. */
const MAX_LINES_PER_REGION = 4;
/** Mean character confidence a kept line needs (PaddleOCR's own floor is 0.5). */
const MIN_SCORE = 0.9;
/** …and a short line (a word or two) more: noise reads as short confident strings. */
const MIN_SCORE_SHORT = 0.95;
const SHORT_CHARS = 6;
/** Points of page around a region in its crop: the detector needs a margin around letters. */
const PAD = 4;
/** A line is already in the text layer when the layer's spans cover this share of its box. */
const COVERED = 0.3;

/** A page reads upright when this share of its text layer's characters runs left to right, unturned. */
const UPRIGHT_SHARE = 0.8;

/**
 * Page step: on a text-layer page OCR may read, the textless regions (pictures, outline drawings)
 * read from the page's scan; the lines found join the layer's spans in the layout step.
 */
export async function readTextless(w: PageWork): Promise<void> {
  if (w.wantOcr || !w.ocrOk || !w.raw.textless.length) return;
  const scan = await w.scan();
  w.signal?.throwIfAborted();
  const { raw } = w;
  w.found = await readMissingText(scan, raw.textless, raw.content.spans, raw.angles, w.opts.providers, w.signal);
}

/**
 * `angles`: each span's baseline angle (degrees, 0 = upright). On a page whose text layer reads
 * upright, its pictures and logos are read upright too: the recognizer's 180° guess is left out.
 */
export async function readMissingText(
  scan: RenderedPage,
  regions: TextlessRegion[],
  spans: TextSpan[],
  angles: number[],
  providers: string[] | undefined,
  signal?: AbortSignal,
): Promise<MissingLine[]> {
  const cjkPage = spans.some((s) => CJK.test(s.text));
  const upright = readsUpright(spans, angles);
  const out: MissingLine[] = [];
  for (const { bbox: r, parts } of regions.slice(0, MAX_REGIONS)) {
    signal?.throwIfAborted();
    const crop = cropRgba(scan, { x0: r.x0 - PAD, y0: r.y0 - PAD, x1: r.x1 + PAD, y1: r.y1 + PAD });
    if (crop.image.width < 16 || crop.image.height < 8) continue;
    // A photograph's words are its scene's (a sign in the street), not a title the page lacks.
    if (isPhotograph(crop.image)) continue;
    const ocr = await recognize(crop.image, providers, signal, MAX_LINES_PER_REGION, upright);
    const toPage = (b: BBox): BBox => ({
      x0: crop.x0 + b.x0 / scan.scale,
      y0: crop.y0 + b.y0 / scan.scale,
      x1: crop.x0 + b.x1 / scan.scale,
      y1: crop.y0 + b.y1 / scan.scale,
    });
    const kept: MissingLine[] = [];
    for (const l of ocr.lines) {
      const text = l.text.normalize('NFKC').replace(/\s+/g, ' ').trim();
      const minScore = text.replace(/\s/g, '').length <= SHORT_CHARS ? MIN_SCORE_SHORT : MIN_SCORE;
      if (l.score < minScore || !plausibleLine(text, cjkPage)) continue;
      const bbox = toPage(l.bbox);
      if (coveredBySpans(bbox, spans) >= COVERED) continue;
      if (out.some((o) => overlap(o.bbox, bbox) > 0.5 * area(bbox))) continue; // regions' crops overlap
      const words = (l.words.length ? l.words : [{ text: l.text, bbox: l.bbox }])
        .map((w) => ({ text: w.text.normalize('NFKC').trim(), bbox: toPage(w.bbox) }))
        .filter((w) => w.text)
        .flatMap((w) => splitAtGaps(w, parts));
      kept.push({ text: words.map((w) => w.text).join(' '), bbox, words });
    }
    if (kept.length) out.push(joinLines(kept));
  }
  return out;
}

/**
 * Whether the text layer reads upright: most of its characters are on unturned baselines. The
 * page's own text is then better evidence of the orientation than the recognizer's guess on a
 * crop of one or two lines of display type.
 */
export function readsUpright(spans: TextSpan[], angles: number[]): boolean {
  let all = 0;
  let up = 0;
  spans.forEach((s, i) => {
    const n = s.text.replace(/\s/g, '').length;
    all += n;
    if (Math.abs(angles[i] ?? 0) < 1) up += n;
  });
  return all > 0 && up >= all * UPRIGHT_SHARE;
}

/**
 * The lines of one region as one line, in reading order: a picture or logo's words stacked in
 * a few lines ("FAITH" over "NO MORE") are one name; layout would otherwise pair each with
 * whatever text sits beside it.
 */
function joinLines(lines: MissingLine[]): MissingLine {
  if (lines.length === 1) return lines[0];
  const heights = lines.map((l) => l.bbox.y1 - l.bbox.y0).sort((a, b) => a - b);
  const h = heights[Math.floor(heights.length / 2)];
  const bbox = boundsOf(lines.map((l) => l.bbox));
  return { text: lines.map((l) => l.text).join(' '), bbox, words: lines.flatMap((l) => l.words), lineHeight: h };
}

/** A camel-case join is split when a word gap of the outlines lies this near it (share of the word's width). */
const GAP_NEAR = 0.25;

/**
 * A word the OCR model read without its space ("UniversiteitAntwerpen": the model drops spaces
 * between words set close) split where the outlines it was read from have a gap between their
 * clusters and the text turns from lower to upper case near it. Where the gap falls in the
 * word is estimated from the share of letters before it.
 */
export function splitAtGaps(w: { text: string; bbox: BBox }, parts: BBox[]): { text: string; bbox: BBox }[] {
  if (parts.length < 2) return [w];
  const { x0, x1, y0, y1 } = w.bbox;
  const width = x1 - x0;
  const row = parts.filter((p) => p.y1 > y0 && p.y0 < y1).sort((a, b) => a.x0 - b.x0);
  const gaps: number[] = [];
  let reach = row.length ? row[0].x1 : 0;
  for (const p of row.slice(1)) {
    if (p.x0 > reach) gaps.push((reach + p.x0) / 2);
    reach = Math.max(reach, p.x1);
  }
  const chars = [...w.text];
  const cuts: number[] = [];
  for (const g of gaps) {
    if (g <= x0 || g >= x1) continue;
    let best = -1;
    let bestD = Infinity;
    for (let i = 1; i < chars.length; i++) {
      if (!(/\p{Ll}/u.test(chars[i - 1]) && /\p{Lu}/u.test(chars[i]))) continue;
      const d = Math.abs(x0 + (i / chars.length) * width - g);
      if (d < bestD) [best, bestD] = [i, d];
    }
    if (best > 0 && bestD <= GAP_NEAR * width && !cuts.includes(best)) cuts.push(best);
  }
  if (!cuts.length) return [w];
  cuts.sort((a, b) => a - b);
  const out: { text: string; bbox: BBox }[] = [];
  let from = 0;
  for (const c of [...cuts, chars.length]) {
    const xa = x0 + (from / chars.length) * width;
    const xb = x0 + (c / chars.length) * width;
    out.push({ text: chars.slice(from, c).join(''), bbox: { x0: xa, y0, x1: xb, y1 } });
    from = c;
  }
  return out;
}

const CJK = /[\u2e80-\u9fff\uac00-\ud7af\uff00-\uffef]/u;

/**
 * Whether an OCR line looks like words a page prints: mostly letters and digits, a word of three
 * or more of them, no CJK on a page whose text layer has none (the recognizer's dictionary is
 * Chinese: noise decodes to CJK characters), and not one character repeated (a row of dots).
 */
export function plausibleLine(text: string, cjkPage = false): boolean {
  const chars = [...text.replace(/\s/g, '')];
  if (chars.length < 2) return false;
  if (!cjkPage && CJK.test(text)) return false;
  const alnum = chars.filter((c) => /[\p{L}\p{N}]/u.test(c)).length;
  if (alnum < chars.length * 0.7) return false;
  if (!/[\p{L}\p{N}]{3,}/u.test(text) && !(cjkPage && CJK.test(text))) return false;
  if (new Set(chars.map((c) => c.toLowerCase())).size < Math.min(3, chars.length)) return false;
  // A word needs a vowel or a digit (Latin): "Xqzkt" is noise, "Version" and "2011" are not.
  const latinWords = text.split(' ').filter((w) => /^[A-Za-z]{4,}$/.test(w));
  if (latinWords.some((w) => !/[aeiouyAEIOUY]/.test(w))) return false;
  return true;
}

function area(b: BBox): number {
  return Math.max(0, b.x1 - b.x0) * Math.max(0, b.y1 - b.y0);
}

function overlap(a: BBox, b: BBox): number {
  const w = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);
  const h = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
  return w > 0 && h > 0 ? w * h : 0;
}

/** Share of a box covered by text-layer spans (their overlaps summed, capped at 1). */
function coveredBySpans(b: BBox, spans: TextSpan[]): number {
  const a = area(b);
  if (a <= 0) return 1;
  let s = 0;
  for (const sp of spans) s += overlap(b, sp.bbox);
  return Math.min(1, s / a);
}

/**
 * The OCR lines as text spans for layout: one span per word, sharing its line's height (so the
 * words group into one line), sized as the text layer would size that type. A detected box is
 * about 1.4 times the type size (the detector's box reaches ascenders and descenders and is
 * unclipped by a margin).
 */
export function missingTextSpans(lines: MissingLine[]): TextSpan[] {
  const spans: TextSpan[] = [];
  for (const l of lines) {
    const fontSize = Math.max(4, Math.round(((l.lineHeight ?? l.bbox.y1 - l.bbox.y0) / BOX_PER_SIZE) * 2) / 2);
    // Joined lines are one span: their words' boxes overlap across the lines.
    const words = l.lineHeight !== undefined ? [{ text: l.text, bbox: l.bbox }] : l.words;
    words.forEach((w, i) =>
      spans.push({
        text: w.text,
        bbox: { x0: w.bbox.x0, y0: l.bbox.y0, x1: w.bbox.x1, y1: l.bbox.y1 },
        fontSize,
        fontName: 'ocr',
        monospace: false,
        eol: i === words.length - 1,
      }),
    );
  }
  return spans;
}

const BOX_PER_SIZE = 1.4;
