/**
 * Lines in reading order → blocks. A new block starts at a change of place (column or band), a
 * list marker, a change of font size, weight or monospace, a wider than usual line pitch, or a
 * jump in indentation.
 */
import type { BBox } from '../../../common/protocol';
import type { Line } from '../lines/index';
import { parseMarker, type Marker } from './markers';
import { isCaptionStart, isFloatCaptionLine } from './captions';
import { samePlace, type Place } from '../order/place';

export interface Block {
  lines: Line[];
  bbox: BBox;
  place: Place;
  /** List marker of the first line (from its text, or a bullet drawn as a shape). */
  marker?: Marker;
  /** x of the marker (list nesting). */
  markerX?: number;
}

export interface BlockLine {
  line: Line;
  place: Place;
  /** A bullet drawn as a vector shape just left of the line. */
  shapeBullet?: BBox;
  /** The line starts a paragraph whatever its indent (a drop cap opens it: dropCap.ts). */
  opensParagraph?: boolean;
}

export function buildBlocks(seq: BlockLine[]): Block[] {
  const blocks: Block[] = [];
  let cur: Block | undefined;
  let lastPitch = 0;
  for (const { line, place, shapeBullet, opensParagraph } of seq) {
    let marker = parseMarker(line.text);
    let markerX = line.bbox.x0;
    // Word writes level-2 bullets as a Courier "o" in a span of its own.
    if (!marker && line.spans.length > 1 && /^[o▪■§]$/u.test(line.spans[0].text.trim())) {
      marker = {
        marker: line.spans[0].text.trim(),
        ordered: false,
        rest: line.text.slice(line.text.indexOf(line.spans[0].text.trim()) + 1).trim(),
      };
    }
    if (!marker && shapeBullet) {
      marker = { marker: '•', ordered: false, rest: line.text };
      markerX = shapeBullet.x0;
    }
    // A monospace line starting with "-" or "*" is code, not a list.
    if (marker && line.monospace) marker = undefined;
    let startNew = !cur || marker !== undefined || opensParagraph === true;
    if (cur && !startNew) {
      const prev = cur.lines[cur.lines.length - 1];
      const size = Math.max(line.fontSize, prev.fontSize, 1);
      const pitch = (line.bbox.y0 + line.bbox.y1) / 2 - (prev.bbox.y0 + prev.bbox.y1) / 2;
      const sizeRatio = line.fontSize / Math.max(prev.fontSize, 0.1);
      const overlapX = Math.min(line.bbox.x1, cur.bbox.x1) - Math.max(line.bbox.x0, cur.bbox.x0);
      const maxPitch = cur.lines.length >= 2 && lastPitch > 0 ? Math.max(lastPitch * 1.35, size * 1.05) : size * 1.65;
      const code = line.monospace && prev.monospace;
      // A caption's next line right under it stays in the caption, whatever cut the geometry
      // made between them (a centred caption over a table wider than its column).
      const captionGoesOn =
        cur.lines.length <= 5 &&
        isCaptionStart(cur.lines[0]!.text) &&
        pitch > 0 &&
        pitch <= size * 1.5 &&
        overlapX > 0 &&
        Math.abs(sizeRatio - 1) < 0.05;
      if (!samePlace(place, cur.place) && !captionGoesOn) startNew = true;
      else if (pitch <= 0 && !code) startNew = true;
      else if (pitch > (code ? size * 2.6 : maxPitch)) startNew = true;
      else if (sizeRatio > 1.12 || sizeRatio < 0.89) startNew = true;
      else if (line.bold !== prev.bold && !(cur.lines.length >= 2 && !prev.bold)) startNew = true;
      else if (line.monospace !== prev.monospace) startNew = true;
      // A one-line italic (or upright) run above a paragraph in the other style: a run-in heading.
      else if (line.italic !== prev.italic && cur.lines.length === 1 && prev.text.length <= 80) startNew = true;
      else if (overlapX <= 0) startNew = true;
      // A short capitalised line centred over a wider line in another case ("ABSTRACT" over the
      // abstract's first line at line spacing): a heading over its text, not the text's first
      // line (a paragraph's first line is indented on its left only, a title's lines share a case).
      else if (cur.lines.length === 1 && capsHeadOver(prev, line, size)) startNew = true;
      else if (!code && cur.marker && line.bbox.x0 < (cur.markerX ?? cur.bbox.x0) - size * 0.5) startNew = true;
      // A jump in indentation, unless the line is centred under the one before as the same unit's
      // next line.
      else if (
        !code &&
        !cur.marker &&
        line.bbox.x0 > cur.bbox.x0 + size * 3 &&
        cur.lines.length >= 2 &&
        !centredTail(line, prev, sizeRatio)
      )
        startNew = true;
      // A numbered caption line ("Table 1:", "Figure 2.") centred in the block's width after a
      // line that ends a sentence: the float's caption, set under the paragraph at its line
      // pitch (an OCR'd page, whose sizes are estimates, gives no other sign). A paragraph's line
      // that starts "Table 2. The …" runs from the block's left edge and stays in it.
      else if (!code && !cur.marker && captionLine(line, cur.bbox, size) && /[.!?:]["'”’)]*$/u.test(prev.text))
        startNew = true;
      // A first-line indent after a short line that ends a sentence: LaTeX's next paragraph
      // (no space between paragraphs, only the indent).
      else if (
        !code &&
        !cur.marker &&
        line.bbox.x0 > cur.bbox.x0 + size * 0.8 &&
        prev.bbox.x1 < cur.bbox.x1 - size &&
        /[.!?:]["'”’)]*$/u.test(prev.text) &&
        cur.lines.length >= 2
      )
        startNew = true;
      if (!startNew) {
        lastPitch = pitch;
        cur.lines.push(line);
        cur.bbox = unionBox(cur.bbox, line.bbox);
        continue;
      }
    }
    cur = { lines: [line], bbox: { ...line.bbox }, place, marker, markerX: marker ? markerX : undefined };
    if (shapeBullet && marker) cur.bbox = unionBox(cur.bbox, shapeBullet);
    lastPitch = 0;
    blocks.push(cur);
  }
  return blocks;
}

/** A numbered caption line ("Table 1:", "Fig. 2.") indented on both sides, by the same amount, within `box`. */
function captionLine(line: Line, box: BBox, size: number): boolean {
  if (!isFloatCaptionLine(line.text)) return false;
  const left = line.bbox.x0 - box.x0;
  const right = box.x1 - line.bbox.x1;
  return left > size * 0.8 && right > size * 0.8 && Math.abs(left - right) < size;
}

/**
 * A line centred under the one before it, in its size and style, after a jump in indentation: the
 * same unit's next line (papertex's boxed title "… embed a related text / inside a piece of
 * news.", the lines of one address or affiliation), except
 * - after a line that ends in an affiliation's note mark: the next affiliation (MORAN's "…South
 *   China University of Technology†" over "SCUT-Zhuhai Institute of …‡");
 * - on lines read by OCR, whose weight and size are estimates that cannot tell a title from the
 *   by-line under it (TAMReview's title over "M Yasser Chuttur"), unless it goes on in lower case.
 */
function centredTail(line: Line, prev: Line, sizeRatio: number): boolean {
  if (Math.abs(line.bbox.x0 + line.bbox.x1 - prev.bbox.x0 - prev.bbox.x1) > 4 || Math.abs(sizeRatio - 1) >= 0.05)
    return false;
  if (line.bold !== prev.bold || line.italic !== prev.italic) return false;
  if (NOTE_MARK_END.test(prev.text)) return false;
  if (/^\P{L}*\p{Ll}/u.test(line.text)) return true;
  return !ocrRead(line) && !ocrRead(prev);
}

/** A capitalised head has at most this many words. */
const CAPS_HEAD_MAX_WORDS = 5;
/** Prose under a head has more than this share of its letters in lower case. */
const PROSE_LOWER_SHARE = 0.6;

/** `prev` is a few upper-case words, and the line under it, prose in lower case, reaches past it on both sides by two of its sizes. */
function capsHeadOver(prev: Line, line: Line, size: number): boolean {
  const t = prev.text.trim();
  if (!/\p{Lu}/u.test(t) || /\p{Ll}/u.test(t) || t.split(/\s+/).length > CAPS_HEAD_MAX_WORDS) return false;
  // The line under it is prose, mostly lower case: a two-line caps head may end in a word or two
  // of lower case ("I. FIRST-LEVEL HEADING: / THE LINE BREAK WAS FORCED via \\").
  const lower = (line.text.match(/\p{Ll}/gu) ?? []).length;
  const upper = (line.text.match(/\p{Lu}/gu) ?? []).length;
  if (lower <= PROSE_LOWER_SHARE * (lower + upper)) return false;
  return line.bbox.x0 <= prev.bbox.x0 - 2 * size && line.bbox.x1 >= prev.bbox.x1 + 2 * size;
}

/** A note mark closing a line: †, ‡, §, ¶, *, ∗ (affiliations keyed to their authors). */
const NOTE_MARK_END = /[†‡§¶*∗]\s*$/u;

/** Every span of the line was read by OCR (a scanned page, or words the text layer lacks). */
function ocrRead(l: Line): boolean {
  return l.spans.every((s) => s.fontName === 'ocr');
}

export function unionBox(a: BBox, b: BBox): BBox {
  return { x0: Math.min(a.x0, b.x0), y0: Math.min(a.y0, b.y0), x1: Math.max(a.x1, b.x1), y1: Math.max(a.y1, b.y1) };
}
