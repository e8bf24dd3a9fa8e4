/**
 * Raised and lowered marks in table cells: a footnote letter after a cell's text ("Cᵃ", "Snᵃ"
 * in a REVTeX table), a superscript or subscript of a symbol ("D¹₄ₕ", "r_c"). Set smaller and
 * off the baseline, such a mark's box centre lies between two rows, so grouping by centre made it
 * a row of its own ("| | a | |" between "K" and "Mn") or gave it to the row above ("He a").
 * Each mark belongs to the span it touches on its left, and takes that span's row: in a grid's
 * cells (grid.ts, fillGrid) and in the lines of a rule-bounded table (hrules.ts). Tables found
 * by alignment alone keep their own line grouping: there a mark joining its line made display
 * formulas (a sum over n² = π²/6) read as tables.
 */
import type { TextSpan } from '../../model/content';

/**
 * A mark is at most this share of its base's size (TeX sets script sizes at 0.7 and 0.5; a 9 pt
 * class such as acmart's sets them at 7.3 pt, 0.81).
 */
const MARK_SIZE = 0.85;

function isMarkText(text: string): boolean {
  const t = text.trim();
  return t.length > 0 && t.length <= 4 && !/\s/.test(t);
}

/**
 * For each mark among `idx` (indices into `spans`), the index of its base: the larger span
 * whose right edge it touches (within 0.3 em of the base) and whose line box it stays close to
 * (within 0.6 of the base's height above or below). Marks of marks are not followed.
 */
export function markBases(spans: TextSpan[], idx: Iterable<number>): Map<number, number> {
  const list = [...idx].filter((i) => spans[i]!.text.trim() !== '');
  const out = new Map<number, number>();
  for (const m of list) {
    const s = spans[m]!;
    if (!isMarkText(s.text)) continue;
    let best: number | undefined;
    let bestGap = Infinity;
    for (const b of list) {
      if (b === m) continue;
      const base = spans[b]!;
      if (s.fontSize > MARK_SIZE * base.fontSize) continue;
      // A glyph-tight box (a capital Greek letter from a math font, 0.7 em tall) is widened to
      // a line's height, or the subscript under it reads as a row of its own ("Ψ²₁").
      const h = Math.max(base.bbox.y1 - base.bbox.y0, 0.8 * base.fontSize);
      const gap = s.bbox.x0 - base.bbox.x1;
      if (gap < -1 || gap > 0.3 * base.fontSize) continue;
      if (s.bbox.y0 < base.bbox.y0 - 0.6 * h || s.bbox.y1 > base.bbox.y1 + 0.6 * h) continue;
      // Off the base's centre line: a mark set on the baseline is small type, not a mark.
      const off = Math.abs((s.bbox.y0 + s.bbox.y1) / 2 - (base.bbox.y0 + base.bbox.y1) / 2);
      if (off < 0.15 * h) continue;
      if (Math.abs(gap) < bestGap) {
        bestGap = Math.abs(gap);
        best = b;
      }
    }
    if (best !== undefined) out.set(m, best);
  }
  // The rest of a script run ("h" after the "4" of a subscript "4h", drawn as two spans) joins
  // the mark it touches, of its own size.
  for (const m of list) {
    if (out.has(m) || !isMarkText(spans[m]!.text)) continue;
    const s = spans[m]!;
    for (const [k, b] of [...out]) {
      const prev = spans[k]!;
      const gap = s.bbox.x0 - prev.bbox.x1;
      const sameSize = Math.abs(prev.fontSize - s.fontSize) <= 0.1 * s.fontSize;
      const sameLine = Math.abs((s.bbox.y0 + s.bbox.y1) / 2 - (prev.bbox.y0 + prev.bbox.y1) / 2) < 0.3 * s.fontSize;
      if (sameSize && sameLine && gap >= -1 && gap <= 0.3 * s.fontSize) {
        out.set(m, b);
        break;
      }
    }
  }
  // A mark's base that is itself a mark ("4h" after "1" after "D") takes the first real base.
  for (const [m, b] of out) {
    let root = b;
    for (let k = 0; k < 4 && out.has(root); k++) root = out.get(root)!;
    out.set(m, root);
  }
  return out;
}

/** The vertical centre a span is placed by: its base's for a mark, else its own. */
export function placementY(spans: TextSpan[], bases: Map<number, number>, i: number): number {
  const s = spans[bases.get(i) ?? i]!;
  return (s.bbox.y0 + s.bbox.y1) / 2;
}
