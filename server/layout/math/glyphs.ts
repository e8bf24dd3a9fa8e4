/**
 * Text spans → glyphs for formula rebuilding. pdf.js gives runs, not glyphs: a run's width is
 * shared among its characters by a rough advance table, which is enough to order glyphs and to
 * see which ones sit over a fraction bar; sizes and baselines come from the run (each size or
 * baseline change starts a new run, so scripts are always runs of their own).
 */
import type { TextSpan } from '../../pipeline/types';
import { normalizeSpanText } from '../normalize';
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
    const chars = [...normalizeSpanText(s.text)];
    // LibreOffice Math spaces every glyph of a run ("A t t e n t i o n"): those spaces mean nothing.
    const letterSpaced = /^\s*\S( \S)+\s*$/.test(s.text);
    const mathFont = MATH_FONT_RE.test(s.fontName.replace(/^[A-Z]{6}\+/, ''));
    let sp = false;
    const total = chars.reduce((a, c) => a + advance(c), 0) || 1;
    const w = s.bbox.x1 - s.bbox.x0;
    const base = baselineOf(s);
    // Math fonts report tall ascents: the glyph box is kept to the run's own box.
    let x = s.bbox.x0;
    for (const ch of chars) {
      const dw = (advance(ch) / total) * w;
      if (ch.trim()) {
        out.push({ ch, x0: x, x1: x + dw, y0: s.bbox.y0, y1: s.bbox.y1, base, size: s.fontSize, font: s.fontName, italic: !!s.italic, run: runOffset + k, sp: sp && !letterSpaced, mathFont });
        sp = false;
      } else sp = true;
      x += dw;
    }
  });
  return out;
}
