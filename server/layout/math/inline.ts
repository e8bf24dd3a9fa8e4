/**
 * Inline math inside running text: runs of math spans in a line become `$…$` pieces with their
 * LaTeX. A line's text is written with placeholders (private-use characters) where the math
 * goes, so that the paragraph's own joining (unwrapping, dehyphenation) works on it unchanged;
 * `splitParts` turns the joined text back into text and math parts.
 */
import type { TextSpan } from '../../model/content';
import type { InlinePart } from '../../model/items';
import type { Line } from '../lines/index';
import { composeAccents, normalizeSpanText } from '../lines/normalize';
import { spansToGlyphs } from './glyphs';
import { buildLatex } from './build';
import { safeLatex } from './validate';
import { FUNCTIONS, MATH_FONT_RE } from './symbols';

const OPEN = '\uE100';
const CLOSE = '\uE101';

/** Digits, operators and brackets in the text font next to math belong to the formula. */
const GLUE_RE = /^[\s\d.()[\]=+\-−<>/|,']*[\d=+\-−<>/|()][\s\d.()[\]=+\-−<>/|,']*$/;

/** Computer Modern's small upright sizes (script sizes, and footnotes). */
const SMALL_CM_RE = /^cmr(5|6|7|8)$/i;

export interface MathText {
  text: string;
  latex: string[];
}

/** Which spans of the line are math: math spans, and text-font glue between or right after them. */
function mathMask(spans: TextSpan[], isMath: (s: TextSpan) => boolean): boolean[] {
  const m = spans.map(isMath);
  // Computer Modern's small upright sizes count as math for the scripts they set, and a lone
  // italic letter for the variable it names (math/detect.ts), but a run in the very font and size
  // of its line's prose is that prose: a footnote in cmr8 goes on past a word in another font
  // ("… corresponds to IEEEconf v1.4, dated 2009/04/05."), and the article "a" of an abstract set
  // in italic is a word of it.
  spans.forEach((s, i) => {
    const bare = s.fontName.replace(/^[A-Z]{6}\+/, '');
    const letters = !MATH_FONT_RE.test(bare) && /^\s*[A-Za-z]{1,2}\s*$/.test(s.text);
    if (!m[i] || !(SMALL_CM_RE.test(bare) || letters)) return;
    const prose = spans.some(
      (o, k) =>
        !m[k] && o.fontName === s.fontName && Math.abs(o.fontSize - s.fontSize) < 0.1 && /\p{L}{3,}/u.test(o.text),
    );
    if (prose) m[i] = false;
  });
  // A letter in the text's italic set tight against an upright word's letters, at its size, is part
  // of that word (a name's initials picked out: "*m*ulti-*o*bject *r*ectified"), not a variable.
  const first = [...m];
  spans.forEach((s, i) => {
    if (!first[i] || MATH_FONT_RE.test(s.fontName.replace(/^[A-Z]{6}\+/, '')) || !/^\s*\p{L}+$/u.test(s.text)) return;
    // Tight and of one size: a subscript ("D" + "func" in cmr7) is smaller than its base.
    const tight = (a: TextSpan, b: TextSpan) =>
      b.bbox.x0 - a.bbox.x1 < 0.1 * Math.min(a.fontSize, b.fontSize) &&
      Math.abs(a.fontSize - b.fontSize) < 0.1 * Math.max(a.fontSize, b.fontSize);
    const prev = spans[i - 1];
    const next = spans[i + 1];
    const before = prev && !first[i - 1] && /\p{L}$/u.test(prev.text) && tight(prev, s);
    const after = next && !first[i + 1] && /^\p{L}/u.test(next.text) && tight(s, next);
    if (before || after) m[i] = false;
  });
  const close = (a: TextSpan, b: TextSpan) => b.bbox.x0 - a.bbox.x1 < Math.max(a.fontSize, b.fontSize) * 0.4;
  for (let i = 0; i < spans.length; i++) {
    if (m[i]) continue;
    const t = spans[i]!.text.trim();
    // A function name in the text font between math runs is the formula's (LibreOffice Math's
    // upright "log" in "O(n log n)").
    const fn = FUNCTIONS.has(t);
    if (!GLUE_RE.test(t) && !fn) continue;
    const left = i > 0 && m[i - 1] && close(spans[i - 1]!, spans[i]!);
    const right = i + 1 < spans.length && m[i + 1] && close(spans[i]!, spans[i + 1]!);
    // Glue counts between math runs, or after one when it carries an operator or a digit.
    if ((left && right) || (!fn && left && /[\d=+\-−<>]/.test(t) && !/^[,.]$/.test(t))) m[i] = true;
    // A closing bracket after a run that opened one closes it ("$x(n)$", not "$x(n$)").
    else if (left && /^[)\]]+$/.test(t) && openBrackets(spans, m, i) >= t.length) m[i] = true;
  }
  // Small raised or lowered spans beside math are its scripts.
  for (let i = 0; i < spans.length; i++) {
    if (m[i]) continue;
    const s = spans[i]!;
    const touching = [i - 1, i + 1].some((k) => {
      const o = spans[k];
      return (
        o !== undefined &&
        m[k] &&
        s.fontSize < o.fontSize * 0.85 &&
        (Math.abs(s.bbox.x0 - o.bbox.x1) < 2 || Math.abs(o.bbox.x0 - s.bbox.x1) < 2)
      );
    });
    if (touching && s.text.trim().length <= 3) m[i] = true;
  }
  return m;
}

/** Brackets left open by the run of math spans that ends right before `i`. */
function openBrackets(spans: TextSpan[], m: boolean[], i: number): number {
  let k = i;
  while (k > 0 && m[k - 1]) k--;
  const run = spans
    .slice(k, i)
    .map((s) => s.text)
    .join('');
  return (run.match(/[([]/g) ?? []).length - (run.match(/[)\]]/g) ?? []).length;
}

const SUPERSCRIPT: Record<string, string> = {
  '0': '⁰',
  '1': '¹',
  '2': '²',
  '3': '³',
  '4': '⁴',
  '5': '⁵',
  '6': '⁶',
  '7': '⁷',
  '8': '⁸',
  '9': '⁹',
  a: 'ᵃ',
  b: 'ᵇ',
  c: 'ᶜ',
  d: 'ᵈ',
  e: 'ᵉ',
  f: 'ᶠ',
  g: 'ᵍ',
  h: 'ʰ',
  i: 'ⁱ',
  j: 'ʲ',
  k: 'ᵏ',
  l: 'ˡ',
  m: 'ᵐ',
  n: 'ⁿ',
  o: 'ᵒ',
  p: 'ᵖ',
  r: 'ʳ',
  s: 'ˢ',
  t: 'ᵗ',
  u: 'ᵘ',
  v: 'ᵛ',
  w: 'ʷ',
  x: 'ˣ',
  y: 'ʸ',
  z: 'ᶻ',
};

/**
 * A footnote mark set as a small raised figure, letter or symbol right after a word (or opening
 * a footnote's line) is no formula: "invoked⁵," and "TROVATO*", not "invoked$5$," glued to the
 * word as inline math. The mark, in superscript characters where Unicode has them; undefined
 * when the run is not such a mark. A script after a digit or inside a formula stays math.
 */
function footnoteMark(line: Line, spans: TextSpan[], i: number, j: number, raw: string): string | undefined {
  if (!/^(\d{1,2}|[a-z]|[*∗†‡§¶]{1,3})$/.test(raw)) return undefined;
  const run = spans.slice(i, j + 1);
  const size = Math.max(...run.map((r) => r.fontSize));
  if (size > line.fontSize * 0.85) return undefined;
  const cy = (Math.min(...run.map((r) => r.bbox.y0)) + Math.max(...run.map((r) => r.bbox.y1))) / 2;
  const body = spans.filter((r) => r.fontSize > size * 1.1);
  if (body.length === 0) return undefined;
  const bodyCy = body.reduce((a, r) => a + (r.bbox.y0 + r.bbox.y1) / 2, 0) / body.length;
  // Raised: its middle clearly above the body text's.
  if (cy > bodyCy - 0.15 * line.fontSize) return undefined;
  const before = spans[i - 1];
  const after = spans[j + 1];
  // After a word or a sentence mark (touching it), or opening the line.
  if (
    before &&
    (!/[\p{L}.,;:)’'"]$/u.test(before.text.trimEnd()) || run[0]!.bbox.x0 - before.bbox.x1 > 0.3 * line.fontSize)
  )
    return undefined;
  // A formula goes on after it: an exponent, not a mark.
  if (after && /^[\s]*[=+\-−^_({[]/.test(after.text)) return undefined;
  return [...raw].map((c) => SUPERSCRIPT[c] ?? c).join('');
}

/** The line's text with math runs replaced by placeholders, and the runs' LaTeX. */
export function lineWithMath(
  line: Line,
  isMath: (s: TextSpan) => boolean,
  latexOut: string[],
  marks: { n: number } = { n: 0 },
): string {
  const spans = line.spans;
  const mask = mathMask(spans, isMath);
  if (!mask.some(Boolean)) return line.text;
  let text = '';
  let prev: TextSpan | undefined;
  for (let i = 0; i < spans.length;) {
    const s = spans[i]!;
    if (prev) {
      const gap = s.bbox.x0 - prev.bbox.x1;
      if (gap > Math.min(prev.fontSize, s.fontSize) * 0.17 && !/\s$/.test(text)) text += ' ';
    }
    if (!mask[i]) {
      let t = normalizeSpanText(s.text);
      // Punctuation right after a formula sticks to it ("$W$," not "$W$ ,").
      if (text.endsWith(CLOSE) && /^\s*[,.;:!?)]/.test(t)) t = t.replace(/^\s+/, '');
      else if (text.endsWith(CLOSE + ' ') && /^\s*[,.;:!?)]/.test(t)) text = text.slice(0, -1);
      text += prev && /\s$/.test(text) ? t.replace(/^\s+/, '') : t;
      prev = s;
      i++;
      continue;
    }
    let j = i;
    while (j + 1 < spans.length && mask[j + 1]) j++;
    const run = spans.slice(i, j + 1);
    const raw = run
      .map((r) => r.text)
      .join('')
      .replace(/\s+/g, ' ')
      .trim();
    const mark = footnoteMark(line, spans, i, j, raw);
    if (mark !== undefined) {
      text += mark;
      marks.n++;
      prev = spans[j];
      i = j + 1;
      continue;
    }
    // A trailing sentence mark set in the math font's run stays text.
    const latex = safeLatex(buildLatex(spansToGlyphs(run), []), raw, false);
    if (latex) {
      if (text && !/\s$/.test(text) && /^\s/.test(run[0]!.text)) text += ' ';
      latexOut.push(latex);
      text += `${OPEN}${latexOut.length - 1}${CLOSE}`;
    } else text += raw;
    prev = spans[j];
    i = j + 1;
  }
  // TeX's spacing accents compose here as in a line without math ("continuit´e de $f$").
  return composeAccents(text.replace(/\s+/g, ' ').trim(), !line.monospace);
}

/** Joined paragraph text with placeholders → parts (text and math, in order). */
export function splitParts(text: string, latex: string[]): InlinePart[] {
  const parts: InlinePart[] = [];
  // Punctuation that wrapped onto the next line still sticks to the formula before it.
  text = text.replace(new RegExp(`${CLOSE}\\s+(?=[,.;:!?)])`, 'g'), CLOSE);
  const re = new RegExp(`${OPEN}(\\d+)${CLOSE}`, 'g');
  let last = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    if (m.index > last) parts.push({ math: false, text: text.slice(last, m.index) });
    parts.push({ math: true, text: latex[Number(m[1])] ?? '' });
    last = m.index + m[0].length;
  }
  if (last < text.length) parts.push({ math: false, text: text.slice(last) });
  return parts.filter((p) => p.text.length > 0);
}

export function hasPlaceholder(text: string): boolean {
  return text.includes(OPEN);
}

/** Plain text of parts, math as `$…$` (for whoever reads `item.text`). */
export function partsText(parts: InlinePart[]): string {
  return parts.map((p) => (p.math ? `$${p.text}$` : p.text)).join('');
}
