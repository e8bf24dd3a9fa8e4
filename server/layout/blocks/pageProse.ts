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

/** The font size carrying the most characters in the page's paragraphs of several lines, if any. */
export function pageProseSize(blocks: Block[], sizeOf: (b: Block) => number): number | undefined {
  const chars = new Map<number, number>();
  for (const b of blocks) {
    if (b.lines.length < PROSE_MIN_LINES || b.lines.some((l) => l.monospace || l.bold)) continue;
    const size = sizeOf(b);
    const n = b.lines.reduce((a, l) => a + l.text.length, 0);
    chars.set(size, (chars.get(size) ?? 0) + n);
  }
  let best: number | undefined;
  let most = 0;
  for (const [s, n] of chars) if (n > most) [best, most] = [s, n];
  return best;
}

/**
 * A block of two lines or more, not bold, set in the page's prose size: text, whatever the
 * document's body size says (a heading in the prose's own size and weight is one line).
 */
export function proseSized(b: Block, size: number, prose: number | undefined): boolean {
  return (
    prose !== undefined && b.lines.length >= 2 && !b.lines.every((l) => l.bold) && Math.abs(size - prose) < SAME_SIZE
  );
}
