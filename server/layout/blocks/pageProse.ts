/**
 * The size this page's running prose is set in (issue 31, heading levels: one style, one role).
 * Heading sizes are ranked against the document's body size, sampled over its first pages; where
 * that sample is dominated by smaller text (fontconfig's manual: pages of 8 pt property tables
 * under 10 pt prose), every paragraph of two or three lines is "larger than the body", and a
 * paragraph that ends a page became `### After the pattern has been edited, …` beside paragraphs
 * of the same font left as text. The page's own prose — blocks of several lines, not code —
 * shows which size is running text here; a block of that size and weight is text, not a heading.
 */
import type { Block } from './index';

/** A block of at least this many lines is running prose that sets the page's prose size. */
const PROSE_MIN_LINES = 3;
/** Sizes within this many points are one size (rounding of text matrices). */
const SAME_SIZE = 0.3;

/** A second prose size needs this many characters of paragraphs (a 9 pt body beside 7 pt references). */
const SECOND_PROSE_MIN_CHARS = 400;

/** The size a block's letters are mostly set in, and the font of its first run with letters. */
function mainFont(b: Block): string {
  return b.lines[0]?.spans.find((s) => /\p{L}/u.test(s.text))?.fontName ?? '';
}

/** The page's running-text styles: sizes and fonts of its paragraphs of several lines. */
export interface PageProse {
  /** The size carrying the most characters in those paragraphs. */
  size: number;
  /** Every size with paragraphs enough to be running text, with the fonts they are set in. */
  styles: Map<number, Set<string>>;
}

/**
 * The page's prose: the font size carrying the most characters in its paragraphs of several lines,
 * and every size that carries paragraphs enough to be running text too (ACM's sigconf: a page
 * whose 7 pt reference list outweighs its 9 pt body text), if any.
 */
export function pageProseSize(blocks: Block[], sizeOf: (b: Block) => number): PageProse | undefined {
  const chars = new Map<number, number>();
  const fonts = new Map<number, Set<string>>();
  for (const b of blocks) {
    if (b.lines.length < PROSE_MIN_LINES || b.lines.some((l) => l.monospace || l.bold)) continue;
    const size = sizeOf(b);
    const n = b.lines.reduce((a, l) => a + l.text.length, 0);
    chars.set(size, (chars.get(size) ?? 0) + n);
    fonts.set(size, (fonts.get(size) ?? new Set()).add(mainFont(b)));
  }
  let best: number | undefined;
  let most = 0;
  for (const [s, n] of chars) if (n > most) [best, most] = [s, n];
  if (best === undefined) return undefined;
  const styles = new Map<number, Set<string>>();
  for (const [s, n] of chars) if (s === best || n >= SECOND_PROSE_MIN_CHARS) styles.set(s, fonts.get(s)!);
  return { size: best, styles };
}

/**
 * Text, not a heading, whatever the document's body size says: a block of two lines or more, not
 * bold, set in one of the page's prose sizes; or one line, neither bold nor in capitals, set in a
 * prose size and the very font of that size's paragraphs (a heading in the prose's own size, font
 * and weight looks like nothing but a line of the paragraph).
 */
export function proseSized(b: Block, size: number, prose: PageProse | undefined): boolean {
  if (!prose || b.lines.every((l) => l.bold)) return false;
  for (const [s, fonts] of prose.styles) {
    if (Math.abs(size - s) >= SAME_SIZE) continue;
    if (b.lines.length >= 2) return true;
    const text = b.lines[0]?.text ?? '';
    if (fonts.has(mainFont(b)) && /\p{Ll}/u.test(text)) return true;
  }
  return false;
}
