/**
 * Text spans → glyphs for formula rebuilding. pdf.js gives runs, not glyphs: a run's width is
 * shared among its characters by a rough advance table, which is enough to order glyphs and to
 * see which ones sit over a fraction bar; sizes and baselines come from the run (each size or
 * baseline change starts a new run, so scripts are always runs of their own).
 */
import type { TextSpan } from '../../model/content';
import { normalizeSpanText } from '../lines/normalize';
import { MATH_FONT_RE } from './symbols';

export interface Glyph {
  ch: string;
  x0: number;
  x1: number;
  y0: number;
  y1: number;
  /** Baseline y (top-left origin). */
  base: number;
  size: number;
  font: string;
  italic: boolean;
  /** Index of the run it came from: letters of one run may form a word. */
  run: number;
  /** A space came before it in its run (words of text inside a formula keep their spaces). */
  sp: boolean;
  /** Set in a math font (not the text font of the page). */
  mathFont: boolean;
  /**
   * TeX's extension font (cmex): big operators, radicals and delimiters hang from the baseline,
   * so the run's box says nothing of their extent; the builder places them on the math axis.
   */
  hang?: boolean;
  /** From a letter-spaced run ("A t t e n t i o n"): LibreOffice Math's one identifier per run. */
  spaced?: boolean;
}

/** Overlaid negation (TeX's \not): a slash glyph on a relation → the negated relation. */
const NEGATED: Record<string, string> = {
  '=': '≠',
  '∈': '∉',
  '⊂': '⊄',
  '≡': '≢',
  '<': '≮',
  '>': '≯',
  '≤': '≰',
  '≥': '≱',
};

/** KaTeX draws \not as a glyph of its own at a private-use code point, over the relation. */
const KATEX_NOT = '\uE020';

function combineNegations(gs: Glyph[]): Glyph[] {
  const out: Glyph[] = [];
  for (let i = 0; i < gs.length; i++) {
    const g = gs[i]!;
    // The overlay may sort after its relation (same x): KaTeX's `=` then its \not.
    const prev = out[out.length - 1];
    if (g.ch === KATEX_NOT && prev && NEGATED[prev.ch] && Math.abs(prev.x0 - g.x0) < g.size * 0.3) {
      out[out.length - 1] = { ...prev, ch: NEGATED[prev.ch]! };
      continue;
    }
    if ((g.ch === '\u0338' || g.ch === '̸' || g.ch === '/' || g.ch === KATEX_NOT) && i + 1 < gs.length) {
      const n = gs[i + 1]!;
      if (NEGATED[n.ch] && Math.abs(n.x0 - g.x0) < g.size * 0.8 && (g.ch !== '/' || n.x0 < g.x1)) {
        out.push({ ...n, ch: NEGATED[n.ch]!, x0: Math.min(g.x0, n.x0) });
        i++;
        continue;
      }
    }
    out.push(g);
  }
  return out;
}

const VARIATION_SELECTORS = /[\uFE00-\uFE0F]/g;

/**
 * TeX's extension font (cmex) by code, for PDFs whose cmex has no ToUnicode (older pdfTeX
 * output): pdf.js then gives the raw codes, "\u0012" for a big "(".
 * Delimiters in their four sizes and the big operators; the pieces of extensible delimiters and
 * the radicals (whose height the builder cannot know) stay as they are.
 */
const CMEX_CODES: Record<number, string> = (() => {
  const t: Record<number, string> = {};
  const delims = ['(', ')', '[', ']', '⌊', '⌋', '⌈', '⌉', '{', '}', '⟨', '⟩', '|', '‖', '/', '\\'];
  delims.forEach((c, i) => (t[i] = c));
  ['(', ')', '(', ')', '[', ']', '⌊', '⌋', '⌈', '⌉', '{', '}', '⟨', '⟩', '/', '\\'].forEach(
    (c, i) => (t[0x10 + i] = c),
  );
  ['(', ')', '[', ']', '⌊', '⌋', '⌈', '⌉', '{', '}', '⟨', '⟩', '/', '\\', '/', '\\'].forEach(
    (c, i) => (t[0x20 + i] = c),
  );
  ['∑', '∏', '∫', '⋃', '⋂', '⊎', '⋀', '⋁'].forEach((c, i) => {
    t[0x50 + i] = c;
    t[0x58 + i] = c;
  });
  t[0x48] = t[0x49] = '∮';
  t[0x4c] = t[0x4d] = '⊕';
  t[0x4e] = t[0x4f] = '⊗';
  t[0x60] = t[0x61] = '∐';
  ['[', ']', '⌊', '⌋', '⌈', '⌉', '{', '}'].forEach((c, i) => (t[0x68 + i] = c));
  return t;
})();

/** A cmex run's text with raw codes read through the cmex encoding. */
function cmexText(text: string): string {
  // Raw codes show as control characters or letters (cmex has no letters); a "(" alone may be
  // a proper Unicode "(" and is left alone.
  if (!/[\x00-\x1fa-z]/.test(text)) return text;
  return [...text].map((c) => (c.charCodeAt(0) < 0x80 && CMEX_CODES[c.charCodeAt(0)]) || c).join('');
}

/** Rough advance widths in em: enough to place glyphs of one run in order. */
function advance(ch: string): number {
  if (/[il.,;:'|!]/.test(ch)) return 0.28;
  if (/[fjtrI()[\]]/.test(ch)) return 0.36;
  if (/[mwMW]/.test(ch)) return 0.85;
  if (/[A-Z]/.test(ch)) return 0.7;
  if (ch === ' ') return 0.3;
  return 0.5;
}

export function baselineOf(s: TextSpan): number {
  const b = (s as { baseline?: number }).baseline;
  return b ?? s.bbox.y1 - 0.22 * s.fontSize;
}

export function spansToGlyphs(spans: TextSpan[], runOffset = 0): Glyph[] {
  const out: Glyph[] = [];
  spans.forEach((s, k) => {
    // Variation selectors (newtx's "∑︁" is U+2211 U+FE01) pick a glyph form; LaTeX has no use for them.
    const bare = s.fontName.replace(/^[A-Z]{6}\+/, '');
    const raw = /^(cmex|lmex)/i.test(bare) ? cmexText(s.text) : s.text;
    const chars = [...normalizeSpanText(raw).replace(VARIATION_SELECTORS, '')];
    // LibreOffice Math spaces every glyph of a run ("A t t e n t i o n"): those spaces mean nothing.
    const letterSpaced = /^\s*\S( \S)+\s*$/.test(s.text);
    const mathFont = MATH_FONT_RE.test(bare);
    const hang = /^(cmex|lmex|eusm|cmbsy)/i.test(bare) && /^(cmex|lmex)/i.test(bare);
    // KaTeX sets \big…\Bigg delimiters in KaTeX_Size1…4 at the text's font size: the glyph is
    // 1.2, 1.8, 2.4 or 3 em tall, centred on the math axis, whatever the run's box says.
    const katexSize = /^KaTeX_Size([1-4])/i.exec(bare);
    const tall = katexSize && /^\s*[()[\]{}|‖⟨⟩⌊⌋⌈⌉∣∥]\s*$/u.test(s.text) ? [1.2, 1.8, 2.4, 3][+katexSize[1]! - 1]! : 0;
    let sp = false;
    const total = chars.reduce((a, c) => a + advance(c), 0) || 1;
    const w = s.bbox.x1 - s.bbox.x0;
    const base = baselineOf(s);
    const axis = base - s.fontSize * 0.25;
    const box = tall
      ? { y0: axis - (tall * s.fontSize) / 2, y1: axis + (tall * s.fontSize) / 2, size: tall * s.fontSize }
      : { y0: s.bbox.y0, y1: s.bbox.y1, size: s.fontSize };
    // Math fonts report tall ascents: the glyph box is kept to the run's own box.
    let x = s.bbox.x0;
    for (const ch of chars) {
      const dw = (advance(ch) / total) * w;
      if (ch.trim()) {
        out.push({
          ch,
          x0: x,
          x1: x + dw,
          y0: box.y0,
          y1: box.y1,
          base,
          size: box.size,
          font: s.fontName,
          italic: !!s.italic,
          run: runOffset + k,
          sp: sp && !letterSpaced,
          mathFont,
          hang,
          spaced: letterSpaced,
        });
        sp = false;
      } else sp = true;
      x += dw;
    }
  });
  return combineNegations(out.sort((a, b) => a.x0 - b.x0 || a.base - b.base));
}
