/**
 * Bounds on the work the preview's Markdown renderer does for one block (issue 34, E2). The text
 * comes from the `.md`, a workspace file: a 320 KB run of `[a](` took 27 s in the old link regex,
 * a 200 KB formula 20–26 s in KaTeX, and `\rule{100000em}` drew a 100000em box over the view.
 *
 * - A block longer than `blockChars` is cut (at a line end when one is near) and says so.
 * - The inline pattern has no alternative that rescans the rest of the text from each `[`: link
 *   text and target are bounded and may not contain brackets/parentheses, so a failed match
 *   stops at the next one.
 * - A formula longer than `formulaChars`, or past the block's formula budget, is shown as its TeX
 *   (code), not typeset; KaTeX sizes are capped at `maxSizeEm` and `maxExpand` macro expansions.
 *
 * No DOM here: unit-tested in Node (test/preview/markdownLimits.test.ts).
 */
import type { KatexOptions } from 'katex';

export const MARKDOWN_LIMITS = {
  /** Characters of one block rendered (a region's Markdown, or text between two regions). */
  blockChars: 64 * 1024,
  /** Characters of one formula given to KaTeX. */
  formulaChars: 2_000,
  /** Formulas typeset in one block; later ones are shown as TeX. */
  formulasPerBlock: 200,
  /** Characters of formulas typeset in one block. */
  formulaCharsPerBlock: 8_000,
  /** Largest size KaTeX draws (`\rule`, `\kern`, `\hspace`…), in em. */
  maxSizeEm: 20,
  /** Macro expansions KaTeX makes for one formula. */
  maxExpand: 500,
} as const;

/** KaTeX options for the preview (DOM output; sizes bounded; `trust: false`: no links or attributes). */
export function katexOptions(displayMode: boolean): KatexOptions {
  return {
    displayMode,
    throwOnError: false,
    trust: false,
    strict: 'ignore',
    output: 'htmlAndMathml',
    maxSize: MARKDOWN_LIMITS.maxSizeEm,
    maxExpand: MARKDOWN_LIMITS.maxExpand,
  };
}

/**
 * Inline Markdown: `code`, $math$, **bold**, __bold__, *italic*, _italic_, [text](link). Each
 * alternative stops at the first character that ends it, so one attempt costs at most the
 * distance to that character (or the bound), and the whole scan is linear in the text. The
 * bounded runs matter: an unbounded backtick run retried every shorter run at every position
 * (64 KB of backticks: 9 s), and an unbounded link target ran to the end of the text from every
 * `[` (320 KB of `[a](`: 27 s).
 */
export const INLINE_PATTERN =
  /(`{1,16})([^`]+?)\1|\$([^$\n]+?)\$|\*\*([^*]+?)\*\*|__([^_]+?)__|\*([^*\s][^*]*?)\*|(?<![\w\\])_([^_\s][^_]*?)_(?!\w)|\[([^[\]\n]{1,1000})\]\(([^()\s]{1,2048})\)/g;

/** A block cut to `blockChars`: the text rendered and how many characters were left out. */
export function capBlock(md: string, max: number = MARKDOWN_LIMITS.blockChars): { text: string; omitted: number } {
  if (md.length <= max) return { text: md, omitted: 0 };
  let end = max;
  const nl = md.lastIndexOf('\n', max);
  if (nl > max - 4096) end = nl;
  // Not between the two halves of a surrogate pair.
  else if (/[\uD800-\uDBFF]/.test(md[end - 1] ?? '')) end--;
  return { text: md.slice(0, end), omitted: md.length - end };
}

/** What one block may still typeset; `take` says whether a formula of this TeX is typeset. */
export class FormulaBudget {
  private count = 0;
  private chars = 0;

  take(tex: string): boolean {
    if (tex.length > MARKDOWN_LIMITS.formulaChars) return false;
    if (this.count + 1 > MARKDOWN_LIMITS.formulasPerBlock) return false;
    if (this.chars + tex.length > MARKDOWN_LIMITS.formulaCharsPerBlock) return false;
    this.count++;
    this.chars += tex.length;
    return true;
  }
}
