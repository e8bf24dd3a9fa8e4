/**
 * Spans → lines. Spans are grouped into rows by vertical overlap, then each row is split where
 * the horizontal gap is too wide to be a word space (columns, table cells). Spaces are inserted
 * from gaps when the producer did not emit them.
 */
import type { TextSpan } from '../../model/content';
import { composeAccents, normalizeSpanText } from './normalize';
import { flushRightEdges, justifiedContinuations } from '../order/streamEvidence';
import { gapCoversGutter } from '../order/xycut';
import { mergeJustifiedOcrLines } from './justifiedOcr';
import { splitsAtEdge, type TextEdges } from '../order/sideNotes';
import type { Line } from './line';

export type { Line } from './line';

/**
 * Marks lines that share their row with another short line (cells, label/value pairs). Lines on
 * either side of a column gutter, one bold and one not, are in different columns, not in one row:
 * a short heading in the left column beside a paragraph's last line in the right one is no cell.
 */
export function markRowMates(lines: Line[], pageWidth: number, gutters: { x0: number; x1: number }[] = []): void {
  const short = (l: Line) => l.bbox.x1 - l.bbox.x0 < pageWidth * 0.3;
  const byY = [...lines].sort((a, b) => a.bbox.y0 - b.bbox.y0);
  for (let i = 0; i < byY.length; i++) {
    const a = byY[i];
    for (let j = i + 1; j < byY.length && byY[j].bbox.y0 < a.bbox.y1; j++) {
      const b = byY[j];
      const ov = Math.min(a.bbox.y1, b.bbox.y1) - Math.max(a.bbox.y0, b.bbox.y0);
      if (ov < 0.5 * Math.min(a.bbox.y1 - a.bbox.y0, b.bbox.y1 - b.bbox.y0)) continue;
      const [l, r] = a.bbox.x0 <= b.bbox.x0 ? [a, b] : [b, a];
      // A table's cells can line up into a gutter too: there the row's cells share their weight.
      if (a.bold !== b.bold && gutters.some((g) => l.bbox.x1 <= g.x0 + 1 && r.bbox.x0 >= g.x1 - 1)) continue;
      if (short(a) && short(b)) {
        a.inRow = true;
        b.inRow = true;
      }
    }
  }
}

const MATH_FONT_RE =
  /^(cmmi|cmsy|cmex|msam|msbm|eufm|rsfs|stix|cambriamath|cambria math|mathematicalpi|symbol|euclid|mt ?extra|lmmath|xits|asana|latinmodern-math)/i;

/**
 * Column gutters: narrow x-ranges in the middle of the page that (almost) no span crosses, with
 * many spans ending left of them and many spans starting right at their edge. Gutters can be
 * narrower than a wide word space (xelatex: 8 pt), so lines must not be merged across them.
 */
const LIST_LABEL = /^(?:\(?\d{1,3}[.)]|\(?[a-z][.)]|\(?[ivx]{1,5}[.)]|[•◦▪‣∙·–—-])$/;

export function findGutters(spans: TextSpan[], pageWidth: number): { x0: number; x1: number }[] {
  const W = Math.ceil(pageWidth);
  if (spans.length < 10 || W < 50) return [];
  const cover = new Int32Array(W + 1);
  let n = 0;
  for (const s of spans) {
    if (s.bbox.x1 - s.bbox.x0 >= pageWidth * 0.6) continue;
    n++;
    const a = Math.max(0, Math.floor(s.bbox.x0 + 0.5));
    const b = Math.min(W, Math.ceil(s.bbox.x1 - 0.5));
    for (let x = a; x < b; x++) cover[x]++;
  }
  const limit = Math.max(1, Math.floor(n * 0.03));
  const out: { x0: number; x1: number }[] = [];
  let x = Math.floor(pageWidth * 0.15);
  const end = Math.ceil(pageWidth * 0.85);
  while (x < end) {
    if (cover[x] > limit) {
      x++;
      continue;
    }
    let y = x;
    while (y < end && cover[y] <= limit) y++;
    if (y - x >= 3) {
      const right = spans.filter((s) => s.bbox.x0 >= y - 1 && s.bbox.x0 <= y + 3);
      const left = spans.filter((s) => s.bbox.x1 <= x + 1 && s.bbox.x1 >= x - 40);
      // Labels of a numbered list hang left of their items' text: a list, not a column, even
      // where nothing else on the page crosses the gap (a page whose other text is in tables).
      const labelsOnly = left.every((s) => LIST_LABEL.test(s.text.trim()));
      if (right.length >= 5 && left.length >= 5 && !labelsOnly && !crossedWithin(spans, x, y, right))
        out.push({ x0: x, x1: y });
    }
    x = y + 1;
  }
  return out;
}

/**
 * Lines wider than 60 % of the page are left out of the coverage above (a title or an abstract
 * over two columns), so a gap can look clear while full-width lines cross it all the way down.
 * Chromium breaks a line's run where a ligature starts ("reviewed the" | "ﬁgures for the"): with
 * the same words opening five paragraphs, the break lined up into a fake gutter and every first
 * line was cut in two. Between the first and the last line beside a real gutter, fewer lines
 * cross it than start at its edge (a float's caption, a spanning heading).
 */
function crossedWithin(spans: TextSpan[], x0: number, x1: number, right: TextSpan[]): boolean {
  let top = Infinity;
  let bottom = -Infinity;
  let h = 0;
  for (const s of right) {
    top = Math.min(top, s.bbox.y0);
    bottom = Math.max(bottom, s.bbox.y1);
    h = Math.max(h, s.bbox.y1 - s.bbox.y0);
  }
  // A line's height of slack: the last line beside the gap may be followed by a crossing one.
  const within = (s: TextSpan) => (s.bbox.y0 + s.bbox.y1) / 2 >= top - h && (s.bbox.y0 + s.bbox.y1) / 2 <= bottom + h;
  const crossing = spans.filter((s) => s.bbox.x0 < x0 && s.bbox.x1 > x1 && within(s)).length;
  return crossing >= right.length;
}

export function buildLines(
  spans: TextSpan[],
  gutters: { x0: number; x1: number }[] = [],
  edges: TextEdges = {},
): Line[] {
  // Stream order (the order pdf.js gives, which is the content stream's) is evidence for lines.
  const streamAt = new Map<TextSpan, number>();
  spans.forEach((s, i) => streamAt.set(s, i));
  const flushRight = flushRightEdges(spans);
  const rows: { cy: number; h: number; size: number; spans: TextSpan[] }[] = [];
  const sorted = [...spans].sort((a, b) => cy(a) - cy(b) || a.bbox.x0 - b.bbox.x0);
  for (const s of sorted) {
    const h = s.bbox.y1 - s.bbox.y0;
    const c = cy(s);
    let best: (typeof rows)[number] | undefined;
    let bestD = Infinity;
    // Only recent rows can match: rows are created in y order.
    for (let k = rows.length - 1; k >= 0 && k >= rows.length - 12; k--) {
      const r = rows[k];
      if (dropCapBeside(s, r)) continue;
      const d = Math.abs(r.cy - c);
      // Sub- and superscripts sit further off the line's middle; a smaller span may reach further.
      const small =
        s.fontSize < 0.85 * r.size &&
        s.fontSize > 0.4 * r.size &&
        s.text.trim().length <= 4 &&
        r.spans.some((o) => Math.abs(s.bbox.x0 - o.bbox.x1) < 1.5 || Math.abs(o.bbox.x0 - s.bbox.x1) < 1.5);
      const limit = small ? 0.5 * r.h : 0.42 * Math.min(h, r.h) + 0.5;
      if (d < limit && d < bestD) {
        best = r;
        bestD = d;
      }
    }
    if (best) {
      if (takesOverMeasure(best, s)) Object.assign(best, { cy: c, h, size: s.fontSize });
      best.spans.push(s);
    } else rows.push({ cy: c, h, size: s.fontSize, spans: [s] });
  }
  // A superscript raised above its line sorts before the line's own spans and starts a row of its
  // own (LibreOffice Math's "x²" in a sentence): a row of such scripts joins the line they touch.
  for (let k = rows.length - 1; k >= 0; k--) {
    const r = rows[k]!;
    if (r.spans.length > 3) continue;
    const host = rows.find(
      (q) =>
        q !== r &&
        r.spans.every(
          (s) =>
            s.fontSize < 0.85 * q.size &&
            s.fontSize > 0.4 * q.size &&
            s.text.trim().length <= 4 &&
            Math.abs(q.cy - cy(s)) < 0.5 * q.h &&
            q.spans.some((o) => Math.abs(s.bbox.x0 - o.bbox.x1) < 1.5 || Math.abs(o.bbox.x0 - s.bbox.x1) < 1.5),
        ),
    );
    if (!host) continue;
    host.spans.push(...r.spans);
    rows.splice(k, 1);
  }
  const lines: Line[] = [];
  for (const r of rows) {
    // Direction by characters, not spans: Latin words inside Arabic text come as many short spans.
    const rtlChars = r.spans.reduce((n, s) => n + (s.dir === 'rtl' ? s.text.length : 0), 0);
    const allChars = r.spans.reduce((n, s) => n + s.text.length, 0);
    const sortedX = accentsBeforeLetters([...r.spans].sort((a, b) => a.bbox.x0 - b.bbox.x0));
    const continues = justifiedContinuations(sortedX, streamAt, flushRight);
    let cur: TextSpan[] = [];
    const flush = () => {
      if (cur.length) lines.push(makeLine(cur, rtlChars * 2 > allChars));
      cur = [];
    };
    for (const s of sortedX) {
      if (cur.length) {
        const prev = cur[cur.length - 1];
        const gap = s.bbox.x0 - maxX1(cur);
        const size = Math.max(4, Math.min(prev.fontSize, s.fontSize));
        // Duplicate drawing (fake bold by overprinting): same text at nearly the same place.
        if (s.text === prev.text && Math.abs(s.bbox.x0 - prev.bbox.x0) < size * 0.3) continue;
        // Wider than a stretched word space: a column gutter or a table cell boundary.
        const crossesGutter = gutters.some(
          (g) =>
            (maxX1(cur) <= g.x0 + 1 && s.bbox.x0 >= g.x1 - 1) ||
            gapCoversGutter(maxX1(cur), s.bbox.x0, g) ||
            // OCR: a word at the next column's left edge after a clear gap is that column's, even
            // when the word before it (a table cell wider than its column) reaches into the gutter.
            (s.fontName === 'ocr' &&
              Math.abs(s.bbox.x0 - g.x1) <= 3 &&
              maxX1(cur) <= g.x0 + 0.75 * (g.x1 - g.x0) &&
              gap >= 0.5 * size),
        );
        // A lone bullet glyph (Word's Courier "o") keeps its line whatever its font.
        const loneBullet =
          cur.length === 1 && /^[o•◦▪■□●○§–—*+‣►▶➢➤✓✔\-\uf0a7\uf0b7\uf0d8\uf076\uf0fc]$/u.test(prev.text.trim());
        // Word sets heading and list numbers ("1.2", "3.", "a)") apart from their text by a tab.
        const loneNumber =
          cur.length === 1 &&
          /^(\d{1,3}(\.\d{1,3})*\.?|[a-zA-Z][.)]|[ivxIVX]{1,5}[.)]|\(\w{1,3}\))$/.test(prev.text.trim());
        const allowed = loneBullet ? 2.5 : loneNumber ? 4 : 1.25;
        // Words of one justified line, however wide the space (Chromium writes each word of a
        // justified line as its own run): see streamEvidence.ts; on scans, justifiedOcr.ts.
        const spacedNext = continues.has(s);
        if (
          crossesGutter ||
          // A margin note beside the text block, or a margin label set flush against it.
          splitsAtEdge(cur, s, edges) ||
          (!spacedNext &&
            (gap > Math.max(size * allowed, 5) ||
              (!loneBullet && !loneNumber && prev.monospace !== s.monospace && gap > size * 0.7)))
        )
          flush();
      }
      cur.push(s);
    }
    flush();
  }
  const merged = mergeJustifiedOcrLines(lines, gutters, makeLine);
  merged.sort((a, b) => a.bbox.y0 - b.bbox.y0 || a.bbox.x0 - b.bbox.x0);
  return merged;
}

const LONE_ACCENT_RE = /^[\u00b4\u00a8\u02c6\u02dc\u02c7\u02d8\u00af\u02d9\u02da\u02dd`]$/u;

/**
 * TeX sets the accent of a capital ("É" in "ÉNONCÉ", "WIKIPÉDIA") as a run of its own, raised,
 * starting a little right of the letter it sits on: by x it sorts after that letter's run and the
 * line read "Enonc´ ´ e". Such a lone accent moves before the run whose first letter it covers
 * (its middle within that letter's width), where composing joins them.
 */
function accentsBeforeLetters(spans: TextSpan[]): TextSpan[] {
  if (!spans.some((s) => LONE_ACCENT_RE.test(s.text.trim()))) return spans;
  const out = [...spans];
  for (const a of spans) {
    if (!LONE_ACCENT_RE.test(a.text.trim())) continue;
    const mid = (a.bbox.x0 + a.bbox.x1) / 2;
    const host = out.find((t) => {
      if (t === a || !/^\p{L}/u.test(t.text)) return false;
      const glyph = (t.bbox.x1 - t.bbox.x0) / Math.max(1, [...t.text].length);
      return t.bbox.x0 <= mid && mid <= t.bbox.x0 + 1.5 * glyph;
    });
    if (!host) continue;
    const i = out.indexOf(a);
    const j = out.indexOf(host);
    if (j > i) continue;
    out.splice(i, 1);
    out.splice(j, 0, a);
  }
  return out;
}

/**
 * A raised script sorts first and opens its line's row (the small "A" of a LaTeX logo): the row
 * then measures from the line's own text that the script touches, not from the script, or a
 * letter set a little below the baseline (the logo's lowered "E") no longer reaches it and
 * becomes a line of its own between two lines of a paragraph. Only text that the script follows
 * or sits over: a footnote mark before its note's first word leaves the measure alone, and so
 * does text that does not touch the script (rows run across the page; a column of larger type
 * beside a smaller one).
 */
function takesOverMeasure(row: { size: number; spans: TextSpan[] }, s: TextSpan): boolean {
  const opener = row.spans[0]!;
  return (
    row.size === opener.fontSize &&
    opener.fontSize < 0.85 * s.fontSize &&
    opener.fontSize > 0.4 * s.fontSize &&
    opener.text.trim().length <= 4 &&
    s.bbox.x0 < opener.bbox.x0 &&
    opener.bbox.x0 - s.bbox.x1 < 1.5
  );
}

/** A drop cap is at least this many times the size of the text beside it (blocks/dropCap.ts). */
const DROP_CAP_SIZE_RATIO = 2;

/**
 * A drop cap three lines tall has its middle level with the second line of the text beside it,
 * and joined that row: "E Mortes, se trouve …" read before the first line "N plein marais …". A
 * lone capital at least twice the size of a row's text (or a row that is such a capital, for the
 * text beside it) keeps a line of its own; blocks/dropCap.ts joins it to the line it opens.
 */
function dropCapBeside(s: TextSpan, row: { size: number; spans: TextSpan[] }): boolean {
  const lone = (t: TextSpan) => /^\p{Lu}$/u.test(t.text.trim());
  if (lone(s) && s.fontSize >= DROP_CAP_SIZE_RATIO * row.size) return true;
  return row.spans.length === 1 && lone(row.spans[0]!) && row.size >= DROP_CAP_SIZE_RATIO * s.fontSize;
}

/**
 * The middle of a span's x-height: from the baseline when known, since math fonts report huge
 * ascents and descents that would move a box's centre off its line.
 */
function cy(s: TextSpan): number {
  const b = (s as { baseline?: number }).baseline;
  return b !== undefined ? b - 0.3 * s.fontSize : (s.bbox.y0 + s.bbox.y1) / 2;
}

function maxX1(spans: TextSpan[]): number {
  let m = -Infinity;
  for (const s of spans) m = Math.max(m, s.bbox.x1);
  return m;
}

/** Regular letters after a line's last bold run for it to be a run-in lead, not a bold line. */
const RUN_IN_MIN_LETTERS = 2;

function endsRegular(spans: TextSpan[]): boolean {
  let trailing = 0;
  for (let i = spans.length - 1; i >= 0; i--) {
    const s = spans[i]!;
    if (s.bold) break;
    trailing += (s.text.match(/\p{L}/gu) ?? []).length;
  }
  return trailing >= RUN_IN_MIN_LETTERS && spans.some((s) => s.bold);
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
      // OCR gives whole words: a space always separates them.
      // An accent drawn over the first letter of the next run ("M¨" + "undler") joins it.
      const accentOver =
        gap < 0 && /[\u00b4\u00a8\u02c6\u02dc\u02c7\u02d8\u00af\u02d9\u02da\u02dd]$/u.test(text) && /^\p{L}/u.test(t);
      const needSpace =
        !accentOver &&
        (gap > Math.min(prev.fontSize, s.fontSize) * 0.17 || (prev.fontName === 'ocr' && s.fontName === 'ocr'));
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
    text: composeAccents(text.replace(/\s+/g, ' ').trim(), monoChars / c <= 0.6),
    fontSize,
    // A bold lead-in followed by regular words on the same line ("2. No dependencies: the
    // tool…", "Measuring Correctness The main goal…") opens a paragraph or a list item: the
    // line is not a bold line, whatever share of it the lead takes.
    bold: boldChars / c > 0.6 && !endsRegular(ordered),
    italic: italicChars / c > 0.6,
    monospace: monoChars / c > 0.6,
    mathRatio: mathChars / c,
    rtl,
    x0: bbox.x0,
  };
}
