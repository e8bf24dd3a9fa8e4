/**
 * The math room's hooks for page layout (server/layout/index.ts): display formulas found before
 * lines are read, inline math put into running text after blocks are classified, and any block
 * classified as a formula rebuilt as LaTeX.
 */
import type { Rule, TextSpan } from '../../model/content';
import type { InlinePart } from '../../model/items';
import type { Block } from '../blocks/index';
import { joinLines } from '../lines/normalize';
import { bodyFont, isMathSpan } from './detect';
import { spansToGlyphs } from './glyphs';
import { buildLatex } from './build';
import { hasPlaceholder, lineWithMath, splitParts } from './inline';
import { safeLatex } from './validate';

export { findDisplayFormulas, type FormulaFound } from './detect';

/** A test for "this span is math" on one page (the body font is the page's). */
export function mathSpanTest(spans: TextSpan[]): (s: TextSpan) => boolean {
  const body = bodyFont(spans);
  const cache = new Map<TextSpan, boolean>();
  return (s) => {
    let v = cache.get(s);
    if (v === undefined) cache.set(s, (v = isMathSpan(s, body)));
    return v;
  };
}

/**
 * Parts of a block's text with its inline math, or undefined when it has none. `skipMarker`
 * drops the list marker's characters from the first line (list items keep only their text).
 */
export function inlineParts(
  block: Block,
  isMath: (s: TextSpan) => boolean,
  vocabulary: Set<string>,
  skipMarker?: string,
): InlinePart[] | undefined {
  if (!block.lines.some((l) => l.spans.some(isMath))) return undefined;
  const latex: string[] = [];
  // Footnote marks set in a math font become superscript text, not math (inline.ts).
  const marks = { n: 0 };
  const texts = block.lines.map((l) => lineWithMath(l, isMath, latex, marks));
  if (skipMarker && texts[0]?.startsWith(skipMarker)) texts[0] = texts[0].slice(skipMarker.length).trim();
  const joined = joinLines(texts, vocabulary);
  if (!hasPlaceholder(joined)) return marks.n > 0 ? [{ math: false, text: joined }] : undefined;
  const parts = splitParts(joined, latex);
  return parts.some((p) => p.math) || marks.n > 0 ? parts : undefined;
}

/**
 * A table found by alignment alone whose cells are mostly math (italic variables, operators):
 * the rows of matrices and cases set in columns, not a table. Digits are neutral, so a table of
 * numbers never counts; one word of prose in it is enough to keep it a table.
 */
export function isMathGrid(spanIndices: number[], spans: TextSpan[]): boolean {
  const body = bodyFont(spans);
  let math = 0;
  let other = 0;
  for (const i of spanIndices) {
    const s = spans[i]!;
    const n = s.text.replace(/[\s0-9.,;:()[\]|=+\-−<>≤≥]/g, '').length;
    if (isMathSpan(s, body)) math += n;
    else {
      other += n;
      if (/\p{L}{3,}/u.test(s.text)) return false;
    }
  }
  return math > 0 && math >= 2 * other;
}

/** LaTeX of a block classified as a formula (its lines' glyphs and the rules inside it). */
export function blockLatex(block: Block, rules: Rule[], raw: string): string {
  const spans = block.lines.flatMap((l) => l.spans);
  const b = block.bbox;
  // A fraction bar overhangs its widest line a little (LibreOffice Math: ~0.2 em each side).
  const pad = Math.max(2, 0.4 * Math.max(0, ...spans.map((s) => s.fontSize)));
  const inner = rules.filter(
    (r) => r.y1 - r.y0 < 2 && r.x0 >= b.x0 - pad && r.x1 <= b.x1 + pad && r.y0 >= b.y0 - 2 && r.y1 <= b.y1 + 2,
  );
  return safeLatex(buildLatex(spansToGlyphs(spans), inner), raw, true);
}
