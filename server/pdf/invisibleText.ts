/**
 * Text a reader cannot see (issue 31, text the text layer lies about): pdf.js's text content
 * holds every string the page shows *and* the ones it draws in text rendering mode 3 (neither
 * filled nor stroked) or 7 (a clipping path only). TCPDF writes "Powered by TCPDF
 * (www.tcpdf.org)" invisibly on every page it makes (a Metromile declarations page); it came out
 * as a paragraph. The text content does not say which strings were invisible, so the operator
 * list is read for them (mode and the glyphs of each show-text operator, in stream order) and a
 * span is invisible when its characters are among the invisible runs' and among no visible run's.
 * A scanner's OCR layer is invisible text too, but it lies over the page's image, which shows
 * it: spans over an image stay.
 */
import type { BBox } from '../../common/protocol';
import type { OpsCodes } from './graphics';

/** The text of a show-text operator's glyph list (numbers are spacing adjustments). */
function glyphText(glyphs: unknown): string {
  if (!Array.isArray(glyphs)) return '';
  let s = '';
  for (const g of glyphs)
    if (g && typeof g === 'object' && 'unicode' in g) s += String((g as { unicode: unknown }).unicode);
  return s;
}

/** Letters only, for matching runs to text items: spacing and normalization differ between the two. */
export function matchKey(s: string): string {
  return s.normalize('NFKC').replace(/\s+/g, '');
}

export interface TextRuns {
  /** Keys of the runs drawn invisibly, in stream order. */
  invisible: string;
  /** Keys of the visible runs, in stream order. */
  visible: string;
}

/** Reads the operator list for the text drawn invisibly (rendering mode 3 or 7). */
export function readTextRuns(fnArray: number[], argsArray: unknown[], OPS: OpsCodes): TextRuns {
  const { save, restore, setTextRenderingMode, showText, showSpacedText } = OPS;
  let mode = 0;
  const stack: number[] = [];
  const invisible: string[] = [];
  const visible: string[] = [];
  for (let i = 0; i < fnArray.length; i++) {
    const fn = fnArray[i];
    const args = argsArray[i] as unknown[] | null;
    if (fn === save) stack.push(mode);
    else if (fn === restore) mode = stack.pop() ?? mode;
    else if (fn === setTextRenderingMode) mode = Number(args?.[0] ?? 0);
    else if (fn === showText || fn === showSpacedText) {
      const key = matchKey(glyphText(args?.[0]));
      if (key) (mode === 3 || mode === 7 ? invisible : visible).push(key);
    }
  }
  // Joined without a separator: pdf.js merges consecutive runs into one text item.
  return { invisible: invisible.join(''), visible: visible.join('') };
}

/**
 * Whether a span's text is drawn only invisibly, away from any image: its characters are found
 * among the invisible runs and among none of the visible ones.
 */
export function invisibleSpan(text: string, bbox: BBox, runs: TextRuns, images: BBox[]): boolean {
  if (!runs.invisible) return false;
  const key = matchKey(text);
  if (!key || !runs.invisible.includes(key) || runs.visible.includes(key)) return false;
  const cx = (bbox.x0 + bbox.x1) / 2;
  const cy = (bbox.y0 + bbox.y1) / 2;
  return !images.some((b) => cx >= b.x0 && cx <= b.x1 && cy >= b.y0 && cy <= b.y1);
}
