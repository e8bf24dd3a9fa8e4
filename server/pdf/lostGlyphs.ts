/**
 * Glyphs a page draws that decode to no character at all (issue 31 class 2): a font whose
 * digits have no Unicode mapping (a TeX document set in Open Sans with old-style figures) shows
 * "Version 1.1" and "November 3, 2011" while its text layer says "Version ." and "November , ".
 * pdf.js keeps such glyphs in the operator list with their advance width and a `unicode` that is
 * empty or a control character, and leaves them out of the text content or keeps the control
 * character there. Lost letters and digits make the page read by OCR, and its lines patched
 * where the OCR reading has characters the layer lacks (pipeline/lostGlyphs.ts, textRepair.ts).
 *
 * Lost symbols are not letters: a questionnaire's checkboxes set in a Wingdings subset whose
 * character map sends them to U+0084, a Redbook's triangle bullets in IBM's BookMaster. OCR
 * reads such a glyph as ")" or "l" or as nothing (and the alignment then hands it a letter of
 * the word before), so a symbol glyph is never sent to OCR: its outline (pdf.js builds glyph
 * paths in Node, `<font>_path_<char>` in commonObjs) says which symbol it draws — a box "☐", a
 * round bullet "•", a triangle "▶" — and the placeholder becomes that character in the text
 * layer. A glyph of a symbol font whose outline names no such shape is left as it was. The
 * character codes of such fonts do not say which symbol either: the questionnaire's Wingdings
 * is re-embedded as a CID font whose codes are glyph ids (0x84 would be "④" in the Wingdings
 * chart, the page shows an empty box), and Docling and pdf.js both keep the raw U+0084.
 */
import type { OpsCodes } from './graphics';

interface Glyph {
  unicode?: unknown;
  fontChar?: unknown;
  width?: unknown;
  isSpace?: unknown;
}

/** What the page's fonts tell about a glyph: the font's name and the glyph's outline. */
export interface GlyphSource {
  /** The font's PostScript name (subset prefix included), '' when unknown. */
  fontName(loadedName: string): string;
  /** The glyph's outline in em units (y up) as pdf.js DrawOPS, or undefined. */
  outline(loadedName: string, fontChar: string): ArrayLike<number> | undefined;
}

export interface LostGlyphs {
  /** Lost glyphs that stand for letters or digits: the page is read by OCR for them. */
  letters: number;
  /**
   * Placeholders of symbol glyphs, each with the symbol its outline draws, or '' where the
   * outline names none (the placeholder is then left as it was, and OCR never fills it).
   */
  symbols: Map<string, string>;
  /**
   * Per font (subset prefix dropped, as spans name it): characters whose glyphs draw a bullet or
   * a box though the font's map names a letter or a private-use code — the questionnaire's
   * Wingdings maps its round bullets to "y" (Docling prints "y" too).
   */
  misnamed: Map<string, Map<string, string>>;
}

/**
 * Nothing, or control characters only: pdf.js gives an unmapped glyph its character code as a
 * C0/C1 control ("\x81" for an old-style "1"), which the text content then drops or keeps.
 */
const NO_TEXT = /^[\u0000-\u0008\u000e-\u001f\u007f-\u009f]*$/;

/** One placeholder character: what a lost glyph leaves in the text layer. */
export function isPlaceholder(ch: string): boolean {
  return ch.length > 0 && NO_TEXT.test(ch);
}

/**
 * Fonts that hold symbols, not letters: dingbat and pi fonts, the AMS symbol fonts, icon fonts.
 * A lost glyph of one of them is never read by OCR.
 */
const SYMBOL_FONT =
  /wingding|webding|dingbat|zapf|symbol|marlett|sorts|(?:^|[+-])pi(?:$|[-\d])|[a-z]pi-|mt ?extra|fontawesome|icons?\b/i;
/**
 * TeX's math symbol and extension fonts: their lost glyphs are pieces of formulas (a large
 * delimiter, a relation), which no bullet's name fits; they are left as they were.
 */
const MATH_FONT = /msam|msbm|^(?:cm|tx|px|lm|ntx)(?:sy|ex)/i;
/** Dingbat fonts, whose maps may call a bullet a letter ("y"); math fonts' maps are right. */
const DINGBAT_FONT = /wingding|webding|dingbat|zapf|marlett|sorts/i;

export function isSymbolFont(name: string): boolean {
  const bare = bareName(name);
  return SYMBOL_FONT.test(bare) || MATH_FONT.test(bare);
}

/** A font's name without its subset prefix ("XXQNYR+"), as the text spans carry it. */
function bareName(name: string): string {
  return name.replace(/^[A-Z]{6}\+/, '');
}

/** Private-use codes of symbol fonts (Word's Symbol and Wingdings bullets: U+F0B7, U+F0A7). */
const SYMBOL_PUA = /^[\uf000-\uf0ff]$/u;
/** Letters and punctuation of Latin-1: what a symbol font's map may name a bullet ("y", "l", "§"). */
const LATIN1 = /^[\u0021-\u007e\u00a1-\u00ff]$/u;

/** pdf.js DrawOPS: the operation codes of a glyph outline and how many numbers each takes. */
const MOVE = 0;
const LINE = 1;
const CURVE = 2;
const QUAD = 3;
const CLOSE = 4;
const ARGS = [2, 2, 6, 4, 0];

interface Contour {
  lines: number;
  curves: number;
  points: [number, number][];
}

function contoursOf(path: ArrayLike<number>): Contour[] | undefined {
  const out: Contour[] = [];
  let cur: Contour | undefined;
  for (let i = 0; i < path.length;) {
    const op = path[i++];
    const n = ARGS[op];
    if (n === undefined || i + n > path.length) return undefined;
    if (op === MOVE) out.push((cur = { lines: 0, curves: 0, points: [] }));
    if (op !== CLOSE) {
      if (!cur) return undefined;
      if (op === LINE) cur.lines++;
      if (op === CURVE || op === QUAD) cur.curves++;
      for (let k = 0; k < n; k += 2) cur.points.push([path[i + k], path[i + k + 1]]);
    }
    i += n;
  }
  return out.filter((c) => c.points.length > 1);
}

/** A square's sides: width and height within this ratio. */
const SQUARE_RATIO = 1.25;
/** A box (checkbox) is at least this tall in ems; a smaller square is a square bullet. */
const BOX_MIN_EM = 0.4;
/** A round bullet is at most this wide in ems ("•" ~0.35; "●" larger). */
const DOT_MAX_EM = 0.45;
/** A bullet sits above the baseline: its centre at least this high (a lost "." sits on it). */
const RAISED_EM = 0.15;
/** A light fill (a white box on a tinted page): its luminance at least this (0–1). */
const LIGHT = 0.8;

/**
 * The symbol a glyph outline draws, if it is one of a list's or a form's: a box, a square, a
 * round bullet or a triangle. `symbolFont`: the glyph is from a symbol font, so a ring or a
 * large disc (a letter "o" or "O" elsewhere) names a symbol too. `lightFill`: the glyph is
 * painted in a light colour, so a filled square shows as an empty box.
 */
export function symbolOfOutline(path: ArrayLike<number>, symbolFont: boolean, lightFill: boolean): string | undefined {
  const contours = contoursOf(path);
  if (!contours?.length || contours.length > 2) return undefined;
  const pts = contours.flatMap((c) => c.points);
  const xs = pts.map((p) => p[0]);
  const ys = pts.map((p) => p[1]);
  const x0 = Math.min(...xs);
  const x1 = Math.max(...xs);
  const y0 = Math.min(...ys);
  const y1 = Math.max(...ys);
  const w = x1 - x0;
  const h = y1 - y0;
  if (w <= 0 || h <= 0) return undefined;
  const square = w / h <= SQUARE_RATIO && h / w <= SQUARE_RATIO;
  const raised = (y0 + y1) / 2 >= RAISED_EM;
  const straight = contours.every((c) => c.curves === 0);
  if (straight && square && contours.every((c) => isRectangle(c, x0, x1, y0, y1, contours.length))) {
    if (h >= BOX_MIN_EM) return contours.length === 2 || lightFill ? '☐' : '■';
    return raised ? '▪' : undefined;
  }
  if (straight && contours.length === 1) {
    const tri = triangle(contours[0], x0, x1, y0, y1);
    if (tri && (raised || symbolFont)) return tri;
  }
  const round = contours.every((c) => c.curves >= 2 && c.lines <= 1);
  if (round && square) {
    if (contours.length === 1 && w <= DOT_MAX_EM) return raised ? '•' : undefined;
    if (!symbolFont) return undefined;
    return contours.length === 2 ? '○' : '●';
  }
  return undefined;
}

/**
 * Four sides along the box's edges (the outer contour) or inside it (a hollow box's inner one):
 * every corner on the bounding box for one contour; for two, the inner one's corners inside.
 */
function isRectangle(c: Contour, x0: number, x1: number, y0: number, y1: number, count: number): boolean {
  // moveTo + 3 or 4 lineTo (the last side may be the close).
  if (c.lines < 3 || c.lines > 4) return false;
  const cx = c.points.map((p) => p[0]);
  const cy = c.points.map((p) => p[1]);
  const distinct = (v: number[]) => new Set(v.map((x) => Math.round(x * 1000))).size;
  if (distinct(cx) !== 2 || distinct(cy) !== 2) return false;
  if (count === 1) return true;
  const tol = (x1 - x0) * 0.02;
  return (
    Math.min(...cx) >= x0 - tol &&
    Math.max(...cx) <= x1 + tol &&
    Math.min(...cy) >= y0 - tol &&
    Math.max(...cy) <= y1 + tol
  );
}

/** A triangle's pointing direction as a symbol ("▶" for a bullet pointing right). */
function triangle(c: Contour, x0: number, x1: number, y0: number, y1: number): string | undefined {
  // moveTo + 2 or 3 lineTo: three corners.
  const pts = c.points.filter((p, i) => i === 0 || p[0] !== c.points[0][0] || p[1] !== c.points[0][1]);
  if (pts.length !== 3 || c.lines < 2 || c.lines > 3) return undefined;
  const tol = Math.max(x1 - x0, y1 - y0) * 0.05;
  const at = (v: number, e: number) => Math.abs(v - e) <= tol;
  const count = (f: (p: [number, number]) => boolean) => pts.filter(f).length;
  if (count((p) => at(p[0], x0)) === 2 && count((p) => at(p[0], x1)) === 1) return '▶';
  if (count((p) => at(p[0], x1)) === 2 && count((p) => at(p[0], x0)) === 1) return '◀';
  if (count((p) => at(p[1], y0)) === 2 && count((p) => at(p[1], y1)) === 1) return '▲';
  if (count((p) => at(p[1], y1)) === 2 && count((p) => at(p[1], y0)) === 1) return '▼';
  return undefined;
}

/** A fill colour as pdf.js writes it in the operator list ("#rrggbb") is light. */
function isLight(hex: unknown): boolean {
  if (typeof hex !== 'string' || !/^#[0-9a-f]{6}$/i.test(hex)) return false;
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b >= LIGHT;
}

/**
 * The page's lost glyphs (non-space, with an advance, no Unicode text): letters counted, symbols
 * named by their outlines. A placeholder that stands for a letter anywhere on the page is a
 * letter's (OCR reads it back); one that stands for two different symbols names none.
 */
export function readLostGlyphs(fnArray: number[], argsArray: unknown[], OPS: OpsCodes, src: GlyphSource): LostGlyphs {
  const { showText, showSpacedText, setFont, setFillRGBColor, save, restore } = OPS;
  let letters = 0;
  const symbols = new Map<string, string>();
  const misnamed = new Map<string, Map<string, string>>();
  const letterMarks = new Set<string>();
  const named = new Map<string, string | undefined>();
  const symbolOf = (path: ArrayLike<number> | undefined, symbolFont: boolean, light: boolean, key: string) => {
    if (!named.has(key)) named.set(key, path ? symbolOfOutline(path, symbolFont, light) : undefined);
    return named.get(key);
  };
  let font = '';
  let fill: unknown = '#000000';
  const stack: { font: string; fill: unknown }[] = [];
  const fonts = new Map<string, { name: string; symbol: boolean; math: boolean; dingbat: boolean }>();
  const fontOf = (loaded: string) => {
    let f = fonts.get(loaded);
    if (!f) {
      const name = bareName(src.fontName(loaded));
      f = { name, symbol: isSymbolFont(name), math: MATH_FONT.test(name), dingbat: DINGBAT_FONT.test(name) };
      fonts.set(loaded, f);
    }
    return f;
  };
  for (let i = 0; i < fnArray.length; i++) {
    const fn = fnArray[i];
    const args = argsArray[i] as unknown[] | null;
    if (fn === save) stack.push({ font, fill });
    else if (fn === restore) ({ font, fill } = stack.pop() ?? { font, fill });
    else if (fn === setFont && typeof args?.[0] === 'string') font = args[0];
    else if (fn === setFillRGBColor) fill = args?.[0];
    if (fn !== showText && fn !== showSpacedText) continue;
    const glyphs = args?.[0];
    if (!Array.isArray(glyphs)) continue;
    for (const g of glyphs as unknown[]) {
      if (!g || typeof g !== 'object') continue;
      const { unicode, width, isSpace, fontChar } = g as Glyph;
      if (typeof unicode !== 'string' || isSpace || typeof width !== 'number' || width <= 0) continue;
      const lost = NO_TEXT.test(unicode);
      const pua = !lost && SYMBOL_PUA.test(unicode);
      // Most glyphs are text with Unicode: only a private-use code or a dingbat font's letter may be a bullet.
      if (!lost && !pua && !LATIN1.test(unicode)) continue;
      const f = fontOf(font);
      if (!lost && (f.math || !(pua || f.dingbat))) continue;
      const light = isLight(fill);
      const outline = () => (typeof fontChar === 'string' ? src.outline(font, fontChar) : undefined);
      const key = `${font}\u0000${String(fontChar)}\u0000${light}`;
      const symbolFont = f.symbol;
      const mathFont = f.math;
      if (!lost) {
        // A letter or private-use code that a symbol font's glyph draws as a bullet or a box.
        const symbol = symbolOf(outline(), symbolFont, light, key);
        if (symbol === undefined) continue;
        let m = misnamed.get(f.name);
        if (!m) misnamed.set(f.name, (m = new Map()));
        const had = m.get(unicode);
        m.set(unicode, had === undefined || had === symbol ? symbol : '');
        continue;
      }
      const symbol = mathFont ? undefined : symbolOf(outline(), symbolFont, light, key);
      if (symbol === undefined && !symbolFont) {
        letters++;
        if (unicode) letterMarks.add(unicode);
        continue;
      }
      if (unicode.length !== 1) continue; // nothing (or no one character) in the text layer to name
      const had = symbols.get(unicode);
      symbols.set(unicode, had === undefined || had === (symbol ?? '') ? (symbol ?? '') : '');
    }
  }
  for (const m of letterMarks) symbols.delete(m);
  return { letters, symbols, misnamed };
}

/**
 * The text of a span (set in `fontName`, subset prefix dropped) with each symbol glyph's
 * placeholder, or misnamed character, replaced by the symbol its outline draws.
 */
export function nameSymbols(text: string, fontName: string, lost: LostGlyphs): string {
  const own = lost.misnamed.get(fontName);
  if (!lost.symbols.size && !own) return text;
  let out = '';
  for (const ch of text) out += lost.symbols.get(ch) || own?.get(ch) || ch;
  return out;
}
