/**
 * Which spans are math, and where the display formulas of a page are.
 *
 * A span is math when its font is a math font (Computer/Latin Modern math italics and symbols,
 * CMEX, STIX, Cambria Math, XITS, Asana, OpenSymbol…), when it holds math characters (Unicode
 * math alphanumerics, operators, relations, Greek), or when it is an italic run of one- or
 * two-letter words in a font family other than the body's (LibreOffice Math sets variables in
 * the serif italic of its own choosing, spaced letter by letter), or a run of lone letters or
 * letter pairs in the body's own italic (LibreOffice Math with DejaVu Serif as the body font).
 *
 * A display formula is a line that is mostly math and holds no prose, grown over the lines
 * around it that belong to it (numerators and denominators over and under a fraction bar,
 * limits, the rows of a matrix or of aligned equations). Its spans leave the text flow and
 * come back as one formula unit with its LaTeX, so the pieces never become headings, code or
 * paragraphs of their own.
 */
import type { BBox } from '../../../common/protocol';
import type { Rule, TextSpan } from '../../model/content';
import { buildLines, findGutters, type Line } from '../lines/index';
import { spansToGlyphs } from './glyphs';
import { buildLatex } from './build';
import { FUNCTIONS, MATH_FONT_RE, isMathChar } from './symbols';
import { safeLatex } from './validate';
import { isUrwItalic } from '../fontStyle';

/** Font family without subset prefix and style suffix (URW's "-Regu", "-ReguItal", "-Medi" too). */
export function fontFamily(name: string): string {
  return name
    .replace(/^[A-Z]{6}\+/, '')
    .replace(
      /[-,](bold|italic|oblique|regular|roman|book|medium|light|semibold|bolditalic|boldoblique|it|bd|bi|(regu|medi|bold|demi|book|ligh)?ital|regu|medi|demi|ligh)\b.*$/i,
      '',
    )
    .replace(/(bold|italic|oblique)+$/i, '')
    .toLowerCase();
}

/** Characters of the page by font: the body font is the one most text is set in. */
export function bodyFont(spans: TextSpan[]): string {
  const n = new Map<string, number>();
  for (const s of spans) n.set(s.fontName, (n.get(s.fontName) ?? 0) + s.text.length);
  let best = '';
  let c = -1;
  for (const [f, k] of n) if (k > c) [best, c] = [f, k];
  return best;
}

/** Two-letter English words: an italic one is emphasis, not a product of two variables. */
const SHORT_WORDS = new Set([
  'am',
  'an',
  'as',
  'at',
  'be',
  'by',
  'do',
  'go',
  'he',
  'if',
  'in',
  'is',
  'it',
  'me',
  'my',
  'no',
  'of',
  'on',
  'or',
  'so',
  'to',
  'up',
  'us',
  'we',
  'ok',
  'vs',
  'eg',
  'ie',
]);

/** newtx and pxfonts math fonts (txmi, txmiaX, txsys, txexs, pxmi, ntxmi, …). */
const TX_MATH_FONT_RE = /^n?(tx|px)(mi|sy|ex)/i;

/**
 * Digits and operators only. pdf.js calls a font subset monospace when its glyphs share one
 * width: a subset of digits, or CMR10's `+` and `=`, is "monospace" without being code, and the
 * `+1=0` of a formula must not fall out of it as a code block; nor a CMSY subset holding only the
 * product's "·" (mathptmx's "s(n) · w(n)").
 */
const NEUTRAL_RE = /^[\s0-9+\-=()[\].,/<>|!:;·⋅×]+$/;

const BULLET_RE = /^[•◦▪■□●○\-–—*·\uf0b7\uf0a7]$/u;

export function isMathSpan(s: TextSpan, body: string): boolean {
  const t = s.text.trim();
  if (!t || BULLET_RE.test(t)) return false;
  const bare = s.fontName.replace(/^[A-Z]{6}\+/, '');
  // newtx / pxfonts math (acmart's Libertine math): pdf.js calls txmiaX monospace and its "=" is
  // plain ASCII, so the font's name decides before the monospace test below.
  if (TX_MATH_FONT_RE.test(bare)) return !/^[.,;:]+$/.test(t);
  // A lone math symbol may come in a font pdf.js calls monospace; code never is all symbols.
  // (Other math fonts stay behind this test: a listing sets "σ}" in CMMI/CMSY inside its code.)
  if (s.monospace) return [...t].every((c) => isMathChar(c) || /\s/.test(c));
  if (MATH_FONT_RE.test(bare)) return !/^[.,;:]+$/.test(t);
  // Computer Modern's small upright sizes set scripts ("x_2", "_{max}") and also footnotes and
  // affiliations: a run of words there is prose ("Also at Physics Department, XYZ University.").
  if (/^cmr(5|6|7|8)$/i.test(bare)) return !/^[.,;:]+$/.test(t) && !isProseRun(t);
  if ([...t].some(isMathChar)) return true;
  // URW's Times italic (mathptmx sets math variables in it) is italic too (fontStyle.ts).
  if (!s.italic && !isUrwItalic(bare)) return false;
  // Variables: words of one or two letters (and function names), nothing longer.
  const words = t.split(/[\s,()=+\-−]+/).filter(Boolean);
  if (fontFamily(bare) === fontFamily(body)) {
    // LibreOffice Math sets variables in the body font's own italic (DejaVu Serif Italic beside
    // DejaVu Serif): a run of lone italic letters or letter pairs (x, dx, xy) is a variable;
    // emphasised prose has longer words, and the two-letter English words stay text.
    return (
      words.length > 0 &&
      words.every((w) => /^\p{L}$/u.test(w) || (/^\p{L}{2}$/u.test(w) && !SHORT_WORDS.has(w.toLowerCase())))
    );
  }
  return words.length > 0 && words.every((w) => w.length <= 2 || FUNCTIONS.has(w) || w === 'mod') && /\p{L}/u.test(t);
}

/** Words of this many letters and more, not function names, that make a small-size run prose. */
const PROSE_WORD_LETTERS = 3;
const PROSE_MIN_WORDS = 2;

function isProseRun(t: string): boolean {
  const words = (t.match(/\p{L}+/gu) ?? []).filter((w) => w.length >= PROSE_WORD_LETTERS && !FUNCTIONS.has(w));
  return words.length >= PROSE_MIN_WORDS;
}

/**
 * One word of four letters or more, in no math font: a running head or a title set in a small
 * Computer Modern size ("WIKIPÉDIA" in cmr8, its accent a run of its own), not a formula.
 */
function oneWord(l: LineInfo): boolean {
  return (
    /^\p{L}{4,}$/u.test(l.line.text.trim()) &&
    !FUNCTIONS.has(l.line.text.trim()) &&
    l.line.spans.every((s) => !MATH_FONT_RE.test(s.fontName.replace(/^[A-Z]{6}\+/, '')))
  );
}

/**
 * Lines stacked over and under a fraction bar, on rows of their own: a display fraction even
 * when its glyphs are all in the text font (`\frac{1}{1+\frac{1}{x}}`: TeX sets digits and `+`
 * in the roman font, so no line of it counts as math). The bar hugs the wider of numerator and
 * denominator; a table rule is far wider than the numbers over it, and an inline fraction
 * shares its row with the prose around it, so neither seeds a formula.
 */
function fractionSeeds(infos: LineInfo[], bars: Rule[], side: (b: BBox) => number): LineInfo[] {
  const out: LineInfo[] = [];
  for (const bar of bars) {
    const y = (bar.y0 + bar.y1) / 2;
    const near = (l: LineInfo) => {
      const b = l.line.bbox;
      const size = Math.max(4, l.line.fontSize);
      return (
        b.x0 >= bar.x0 - size * 0.5 &&
        b.x1 <= bar.x1 + size * 0.5 &&
        side(b) === side(bar) &&
        ((b.y1 <= y + 1.5 && b.y1 >= y - size) || (b.y0 >= y - 1.5 && b.y0 <= y + size))
      );
    };
    const around = infos.filter(near);
    const above = around.filter((l) => (l.line.bbox.y0 + l.line.bbox.y1) / 2 < y);
    const below = around.filter((l) => (l.line.bbox.y0 + l.line.bbox.y1) / 2 > y);
    if (!above.length || !below.length) continue;
    if (around.some((l) => l.prose > 1 || EQ_NUMBER_RE.test(l.line.text.trim()))) continue;
    const size = Math.max(4, ...around.map((l) => l.line.fontSize));
    const widest = Math.max(...around.map((l) => l.line.bbox.x1 - l.line.bbox.x0));
    if (bar.x1 - bar.x0 > widest + size * 1.5) continue;
    // Prose on the bar's own row: the fraction is inline, part of that line.
    const inRow = infos.some(
      (l) =>
        !around.includes(l) &&
        l.prose >= 2 &&
        l.line.bbox.y0 < y &&
        l.line.bbox.y1 > y &&
        side(l.line.bbox) === side(bar),
    );
    if (!inRow) out.push(...around);
  }
  return out;
}

/** Big delimiters and operators alone in a span: their size is not the line's. */
const BIG_GLYPHS_RE = /^[\s()[\]{}|‖⟨⟩⌊⌋⌈⌉∑∏∫∮∐⋃⋂⨁⨂√]+$/u;

/** A line's text size: a binomial's tall parentheses must not make its reach three lines deep. */
function textSize(line: Line): number {
  const sizes = line.spans.filter((s) => !BIG_GLYPHS_RE.test(s.text)).map((s) => s.fontSize);
  return sizes.length ? Math.max(...sizes) : line.fontSize;
}

export interface FormulaFound {
  bbox: BBox;
  latex: string;
  spanIndices: number[];
}

interface LineInfo {
  line: Line;
  idx: number[];
  math: number;
  total: number;
  prose: number;
}

const EQ_NUMBER_RE = /^\(\s*[0-9]{1,3}(\.[0-9]{1,3})?[a-z]?\s*\)$/;

/**
 * Display formulas among `spans` (indices in `taken` are skipped: table cells). Rules are the
 * page's thin rules; fraction bars and radical overbars are among them.
 */
export function findDisplayFormulas(
  spans: TextSpan[],
  rules: Rule[],
  taken: Set<number>,
  pageWidth: number,
  angles?: number[],
): FormulaFound[] {
  const body = bodyFont(spans);
  const isMath = spans.map((s) => isMathSpan(s, body));
  if (!isMath.some(Boolean)) return [];
  const free = spans
    .map((s, i) => i)
    .filter(
      (i) =>
        !taken.has(i) &&
        Math.abs(angles?.[i] ?? 0) <= 3 &&
        spans[i]!.text.trim() !== '' &&
        (!spans[i]!.monospace || isMath[i] || NEUTRAL_RE.test(spans[i]!.text)),
    );
  const sub = free.map((i) => spans[i]!);
  const index = new Map<TextSpan, number>(free.map((i) => [spans[i]!, i]));
  const gutters = findGutters(sub, pageWidth);
  const lines = buildLines(sub, gutters);
  // A formula never crosses a column gutter.
  const side = (b: BBox) => gutters.filter((g) => (b.x0 + b.x1) / 2 > (g.x0 + g.x1) / 2).length;
  const infos: LineInfo[] = lines.map((line) => {
    const idx = line.spans.map((s) => index.get(s)!);
    let math = 0;
    let total = 0;
    let prose = 0;
    for (const i of idx) {
      const t = spans[i]!.text;
      const n = t.replace(/\s/g, '').length;
      if (isMath[i]) {
        math += n;
        total += n;
        continue;
      }
      // Digits, operators, brackets and function names in the text font are neutral: TeX sets
      // them in the roman font inside math too.
      const words = t.match(/\p{L}+/gu) ?? [];
      const fn = words.filter((w) => FUNCTIONS.has(w)).join('').length;
      total += n - fn - (t.match(/[0-9+\-=()[\]/.,|!'<>:;]/g) ?? []).length;
      prose += words.filter((w) => w.length >= 3 && !FUNCTIONS.has(w)).length;
    }
    return { line, idx, math, total, prose };
  });
  const bars = rules.filter((r) => r.y1 - r.y0 < 2 && r.x1 - r.x0 >= 2 && r.x1 - r.x0 < pageWidth * 0.5);
  // A display formula owns its rows: a line beside prose or code on its row (a word between
  // code spans, an inline binomial's parts) is part of that text, not of the formula below it.
  const freeSet = new Set(free);
  // Beside it on the row: overlapping most of its height, at most two ems away (the other
  // column of a page whose gutter was not found is farther).
  const rowOverlap = (a: BBox, b: BBox) =>
    Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0) > 0.5 * Math.min(a.y1 - a.y0, b.y1 - b.y0) &&
    Math.max(0, a.x0 - b.x1, b.x0 - a.x1) < 2 * Math.max(4, Math.min(a.y1 - a.y0, b.y1 - b.y0));
  const sharesRow = (l: LineInfo) => {
    // cmex glyphs hang from their baseline: their run's box sits a line too high.
    const hang = l.line.spans.every((s) => /^([A-Z]{6}\+)?(cmex|lmex)/i.test(s.fontName));
    const b = hang ? { ...l.line.bbox, y1: l.line.bbox.y1 + l.line.fontSize } : l.line.bbox;
    if (infos.some((o) => o !== l && o.prose >= 2 && side(o.line.bbox) === side(b) && rowOverlap(o.line.bbox, b)))
      return true;
    return spans.some(
      (s, i) =>
        !freeSet.has(i) && !taken.has(i) && s.text.trim() !== '' && side(s.bbox) === side(b) && rowOverlap(s.bbox, b),
    );
  };
  // Left edge of the text around a line (its column): display formulas are set in from it.
  const leftOf = (l: LineInfo) => {
    const b = l.line.bbox;
    const around = infos.filter(
      (o) => o.line.bbox.x1 > b.x0 && o.line.bbox.x0 < b.x1 && Math.abs(o.line.bbox.y0 - b.y0) < 300 && o.prose >= 3,
    );
    return around.length ? Math.min(...around.map((o) => o.line.bbox.x0)) : 0;
  };
  const seeds = infos.filter((l) => {
    if (l.math < 2 || l.prose > 2 || EQ_NUMBER_RE.test(l.line.text.trim()) || sharesRow(l) || oneWord(l)) return false;
    if (l.total <= 0) return false;
    const setIn = l.line.bbox.x0 - leftOf(l) >= Math.max(4, l.line.fontSize) * 2;
    // Mostly math; or set in from the text with math in it and few words (a centred formula
    // with a "for all" or "e.g." in it).
    return setIn && l.math / l.total >= (l.math / l.total >= 0.6 ? 0.6 : 0.2);
  });
  seeds.push(...fractionSeeds(infos, bars, side).filter((l) => !seeds.includes(l)));
  const used = new Set<LineInfo>();
  const groups: LineInfo[][] = [];
  for (const seed of seeds) {
    if (used.has(seed)) continue;
    const group = [seed];
    groups.push(group);
    used.add(seed);
    let box = { ...seed.line.bbox };
    const size = Math.max(4, textSize(seed.line));
    let grew = true;
    while (grew) {
      grew = false;
      // Bars touching the group take what is right above and below them.
      const near = bars.filter(
        (r) => r.x1 > box.x0 - 1 && r.x0 < box.x1 + 1 && r.y0 > box.y0 - size * 0.6 && r.y1 < box.y1 + size * 0.6,
      );
      for (const l of infos) {
        if (used.has(l)) continue;
        const b = l.line.bbox;
        const mathy = (l.total <= 0 || l.math / l.total >= 0.5 || l.total <= 3) && l.prose <= 1;
        // Next to a member line: overlapping it horizontally, less than a line's gap away.
        const touches = group.some((m) => {
          const a = m.line.bbox;
          const dy = Math.max(0, b.y0 - a.y1, a.y0 - b.y1);
          const dx = Math.max(0, b.x0 - a.x1, a.x0 - b.x1);
          return dy < size * 0.7 && dx < size * 1.5;
        });
        const byBar = near.some(
          (r) => b.x1 > r.x0 - 1 && b.x0 < r.x1 + 1 && Math.abs((b.y0 + b.y1) / 2 - (r.y0 + r.y1) / 2) < size * 1.6,
        );
        // The equation number at the right margin, on the formula's row.
        const number = EQ_NUMBER_RE.test(l.line.text.trim()) && b.y0 < box.y1 && b.y1 > box.y0 && b.x0 > box.x1;
        if (side(b) !== side(seed.line.bbox)) continue;
        if (((touches && mathy) || (byBar && mathy)) && sharesRow(l)) continue;
        if ((touches && mathy) || (byBar && mathy) || number) {
          group.push(l);
          used.add(l);
          box = {
            x0: Math.min(box.x0, b.x0),
            y0: Math.min(box.y0, b.y0),
            x1: Math.max(box.x1, b.x1),
            y1: Math.max(box.y1, b.y1),
          };
          grew = true;
        }
      }
    }
  }
  // Groups that touch are one formula (a line of text-font words beside a fraction).
  const boxOf = (g: LineInfo[]) => ({
    x0: Math.min(...g.map((l) => l.line.bbox.x0)),
    y0: Math.min(...g.map((l) => l.line.bbox.y0)),
    x1: Math.max(...g.map((l) => l.line.bbox.x1)),
    y1: Math.max(...g.map((l) => l.line.bbox.y1)),
  });
  for (let merged = true; merged;) {
    merged = false;
    for (let i = 0; i < groups.length && !merged; i++)
      for (let j = i + 1; j < groups.length && !merged; j++) {
        const p = boxOf(groups[i]!);
        const q = boxOf(groups[j]!);
        const size = Math.max(4, groups[i]![0]!.line.fontSize);
        const dy = Math.max(0, q.y0 - p.y1, p.y0 - q.y1);
        const dx = Math.max(0, q.x0 - p.x1, p.x0 - q.x1);
        const ov = Math.min(p.y1, q.y1) - Math.max(p.y0, q.y0);
        if (side(p) !== side(q)) continue;
        if ((ov > 0 && dx < size * 1.5) || (dy < size * 0.3 && dx < size * 0.5)) {
          groups[i]!.push(...groups[j]!);
          groups.splice(j, 1);
          merged = true;
        }
      }
  }
  const out: FormulaFound[] = [];
  for (const group of groups) {
    const numberLine = group.find((l) => EQ_NUMBER_RE.test(l.line.text.trim()));
    const members = group.filter((l) => l !== numberLine).flatMap((l) => l.idx);
    // A single short run of plain letters is a variable mentioned on its own line, not worth a unit.
    const fx = members.map((i) => spans[i]!);
    const region = {
      x0: Math.min(...fx.map((s) => s.bbox.x0)),
      y0: Math.min(...fx.map((s) => s.bbox.y0)),
      x1: Math.max(...fx.map((s) => s.bbox.x1)),
      y1: Math.max(...fx.map((s) => s.bbox.y1)),
    };
    // A fraction bar overhangs its widest line a little (LibreOffice Math: ~0.2 em each side).
    const pad = Math.max(2, 0.4 * Math.max(...fx.map((s) => s.fontSize)));
    const inner = rules.filter(
      (r) =>
        r.y1 - r.y0 < 2 &&
        r.x0 >= region.x0 - pad &&
        r.x1 <= region.x1 + pad &&
        r.y0 >= region.y0 - 2 &&
        r.y1 <= region.y1 + 2,
    );
    let latex = buildLatex(spansToGlyphs(fx), inner);
    if (numberLine) latex += ` \\tag{${numberLine.line.text.replace(/[()\s]/g, '')}}`;
    latex = safeLatex(latex, fx.map((s) => s.text).join(' '), true);
    if (!latex) continue;
    const all = numberLine ? [...members, ...numberLine.idx] : members;
    const bb = numberLine ? { ...region, x1: Math.max(region.x1, numberLine.line.bbox.x1) } : region;
    out.push({ bbox: bb, latex, spanIndices: all });
  }
  return out;
}
