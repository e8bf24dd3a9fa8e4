/**
 * Spans → lines. Spans are grouped into rows by vertical overlap, then each row is split where
 * the horizontal gap is too wide to be a word space (columns, table cells). Spaces are inserted
 * from gaps when the producer did not emit them.
 */
import type { BBox } from '../protocol';
import type { TextSpan } from '../pipeline/types';
import { normalizeSpanText } from './normalize';

export interface Line {
  spans: TextSpan[];
  bbox: BBox;
  text: string;
  /** Dominant font size (by characters). */
  fontSize: number;
  bold: boolean;
  italic: boolean;
  monospace: boolean;
  /** Share of characters in math fonts or math symbols. */
  mathRatio: number;
  rtl: boolean;
  /** x where the text after a list marker starts (for continuation-line alignment). */
  x0: number;
  /** Another short line sits on the same row: a table cell or a form label, not a heading. */
  inRow?: boolean;
}

/** Marks lines that share their row with another short line (cells, label/value pairs). */
export function markRowMates(lines: Line[], pageWidth: number): void {
  const short = (l: Line) => l.bbox.x1 - l.bbox.x0 < pageWidth * 0.3;
  const byY = [...lines].sort((a, b) => a.bbox.y0 - b.bbox.y0);
  for (let i = 0; i < byY.length; i++) {
    const a = byY[i];
    for (let j = i + 1; j < byY.length && byY[j].bbox.y0 < a.bbox.y1; j++) {
      const b = byY[j];
      const ov = Math.min(a.bbox.y1, b.bbox.y1) - Math.max(a.bbox.y0, b.bbox.y0);
      if (ov < 0.5 * Math.min(a.bbox.y1 - a.bbox.y0, b.bbox.y1 - b.bbox.y0)) continue;
      if (short(a) && short(b)) {
        a.inRow = true;
        b.inRow = true;
      }
    }
  }
}

const MATH_FONT_RE = /^(cmmi|cmsy|cmex|msam|msbm|eufm|rsfs|stix|cambriamath|cambria math|mathematicalpi|symbol|euclid|mt ?extra|lmmath|xits|asana|latinmodern-math)/i;

export function buildLines(spans: TextSpan[]): Line[] {
  const rows: { cy: number; h: number; spans: TextSpan[] }[] = [];
  const sorted = [...spans].sort((a, b) => cy(a) - cy(b) || a.bbox.x0 - b.bbox.x0);
  for (const s of sorted) {
    const h = s.bbox.y1 - s.bbox.y0;
    const c = cy(s);
    let best: (typeof rows)[number] | undefined;
    let bestD = Infinity;
    // Only recent rows can match: rows are created in y order.
    for (let k = rows.length - 1; k >= 0 && k >= rows.length - 12; k--) {
      const r = rows[k];
      const d = Math.abs(r.cy - c);
      if (d < 0.42 * Math.min(h, r.h) + 0.5 && d < bestD) {
        best = r;
        bestD = d;
      }
    }
    if (best) best.spans.push(s);
    else rows.push({ cy: c, h, spans: [s] });
  }
  const lines: Line[] = [];
  for (const r of rows) {
    const rtlCount = r.spans.filter((s) => s.dir === 'rtl').length;
    const sortedX = [...r.spans].sort((a, b) => a.bbox.x0 - b.bbox.x0);
    let cur: TextSpan[] = [];
    const flush = () => {
      if (cur.length) lines.push(makeLine(cur, rtlCount * 2 > r.spans.length));
      cur = [];
    };
    for (const s of sortedX) {
      if (cur.length) {
        const prev = cur[cur.length - 1];
        const gap = s.bbox.x0 - maxX1(cur);
        const size = Math.max(4, Math.min(prev.fontSize, s.fontSize));
        // Duplicate drawing (fake bold by overprinting): same text at nearly the same place.
        if (s.text === prev.text && Math.abs(s.bbox.x0 - prev.bbox.x0) < size * 0.3) continue;
        if (gap > Math.max(size * 1.6, 8) || (prev.monospace !== s.monospace && gap > size)) flush();
      }
      cur.push(s);
    }
    flush();
  }
  lines.sort((a, b) => a.bbox.y0 - b.bbox.y0 || a.bbox.x0 - b.bbox.x0);
  return lines;
}

function cy(s: TextSpan): number {
  return (s.bbox.y0 + s.bbox.y1) / 2;
}

function maxX1(spans: TextSpan[]): number {
  let m = -Infinity;
  for (const s of spans) m = Math.max(m, s.bbox.x1);
  return m;
}

export function makeLine(spans: TextSpan[], rtl: boolean): Line {
  const ordered = rtl ? [...spans].sort((a, b) => b.bbox.x1 - a.bbox.x1) : spans;
  let text = '';
  let prev: TextSpan | undefined;
  const sizes = new Map<number, number>();
  let chars = 0;
  let boldChars = 0;
  let italicChars = 0;
  let monoChars = 0;
  let mathChars = 0;
  for (const s of ordered) {
    const t = normalizeSpanText(s.text);
    if (prev) {
      const gap = rtl ? prev.bbox.x0 - s.bbox.x1 : s.bbox.x0 - prev.bbox.x1;
      const needSpace = gap > Math.min(prev.fontSize, s.fontSize) * 0.17;
      if (needSpace && !/\s$/.test(text) && !/^\s/.test(t)) text += ' ';
    }
    text += t;
    const n = t.replace(/\s/g, '').length;
    chars += n;
    sizes.set(Math.round(s.fontSize * 2) / 2, (sizes.get(Math.round(s.fontSize * 2) / 2) ?? 0) + n);
    if (s.bold) boldChars += n;
    if (s.italic) italicChars += n;
    if (s.monospace) monoChars += n;
    if (MATH_FONT_RE.test(s.fontName)) mathChars += n;
    else mathChars += (t.match(/[=+×÷±∓≤≥≈≠∑∏∫∂∇√∞∈∉⊂⊆∪∩→←⇒⇔∀∃α-ωΑ-Ω^_{}|]/gu) ?? []).length * 0.6;
    prev = s;
  }
  let fontSize = 0;
  let best = -1;
  for (const [sz, n] of sizes) if (n > best) [fontSize, best] = [sz, n];
  const bbox = {
    x0: Math.min(...spans.map((s) => s.bbox.x0)),
    y0: Math.min(...spans.map((s) => s.bbox.y0)),
    x1: Math.max(...spans.map((s) => s.bbox.x1)),
    y1: Math.max(...spans.map((s) => s.bbox.y1)),
  };
  const c = Math.max(chars, 1);
  return {
    spans: ordered,
    bbox,
    text: text.replace(/\s+/g, ' ').trim(),
    fontSize,
    bold: boldChars / c > 0.6,
    italic: italicChars / c > 0.6,
    monospace: monoChars / c > 0.6,
    mathRatio: mathChars / c,
    rtl,
    x0: bbox.x0,
  };
}
