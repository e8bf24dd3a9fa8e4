/**
 * A page set in a typewriter font (issue 40, class 6): a memo, a report typed on a typewriter, a
 * scan whose OCR layer is set in Courier. Monospace marks code only where it sets code apart from
 * the text; when it is the page's own text face, every block of the page was fenced as code (the
 * memo's paragraphs, its address lines, its table's caption). On such a page a monospace line is
 * text unless it reads as code: code tokens (a statement's `;`, braces, assignment and comparison
 * operators, a comment's or a prompt's lead), or a dense run of symbols; a line between two code
 * lines, or indented under one, is the listing's too (a comment inside it, a lone keyword).
 *
 * On a page where monospace is the exception (a short listing in Courier between paragraphs in a
 * proportional face) nothing changes: that listing is code.
 */
import type { Line } from '../lines/index';

/** A page is typewriter-set when at least this share of its letters are in monospace lines (a manual whose proportional prose frames monospace listings and help output is not)… */
const PAGE_MONO_SHARE = 0.9;
/** …over at least this many monospace lines. */
const PAGE_MIN_MONO_LINES = 6;
/** Symbols that code is dense in, as a share of a line's non-space characters. */
const CODE_SYMBOL_DENSITY = 0.12;

const CODE_SYMBOLS = /[{}()[\];=<>+*/%&|^~\\#$@]/g;
/** Tokens that only code writes: a statement's end, a block's brace, operators, comment and prompt leads. */
const CODE_TOKENS =
  /[;{]\s*$|^\s*[{}]|(==|!=|<=|>=|\+=|-=|\*=|\/=|\+\+|--\s*[;)]|->|=>|:=|&&|\|\||::)|^\s*(\/\/|\/\*|\*\/|#!|#include|#define|\$ |>>> |% )|\b\w+\([^)]*\)\s*[;{]?\s*$/;

/** Lines that are prose set in a typewriter face: `monospace` turned off, so blocks and classes read them as text. */
export function typewriterProse(lines: Line[]): Set<Line> {
  const prose = new Set<Line>();
  if (!typewriterPage(lines)) return prose;
  const code = lines.map((l) => l.monospace && codeLike(l.text));
  lines.forEach((l, i) => {
    if (!l.monospace || code[i]) return;
    // A comment or a lone word inside a listing: between code lines, or indented under one.
    const before = code[i - 1] === true;
    const after = code[i + 1] === true;
    const indentedUnder = before && l.bbox.x0 > lines[i - 1]!.bbox.x0 + l.fontSize;
    if ((before && after) || indentedUnder) return;
    prose.add(l);
  });
  return prose;
}

function typewriterPage(lines: Line[]): boolean {
  let mono = 0;
  let all = 0;
  let monoLines = 0;
  for (const l of lines) {
    const n = (l.text.match(/\p{L}/gu) ?? []).length;
    all += n;
    if (l.monospace) {
      mono += n;
      monoLines++;
    }
  }
  return monoLines >= PAGE_MIN_MONO_LINES && all > 0 && mono >= PAGE_MONO_SHARE * all;
}

/**
 * A line of plain words closed by `;`: a list item's or a clause's end in prose ("parapets or walls
 * that may carry a mark;"), not a statement's. Four or more words, three of them lower-case words,
 * and nothing but letters, digits, spaces and prose punctuation before the `;` (a statement has an
 * operator, a call's parentheses, a dotted name or a keyword or two: `return;`, `x = 1;`, `free(p);`).
 */
const PROSE_SEMICOLON = /^(?:\d+[.)]\s+)?[\p{L}\d,'’"“”\- ]+;\s*$/u;

function proseSemicolon(t: string): boolean {
  if (!PROSE_SEMICOLON.test(t.trim())) return false;
  const words = t.trim().split(/\s+/);
  return words.length >= 4 && words.filter((w) => /^\p{Ll}{2,}/u.test(w)).length >= 3;
}

/** A line that reads as code: code tokens, or symbols dense enough for a formula or a statement. */
export function codeLike(text: string): boolean {
  let t = text.replace(/\S+@\S+\.\w+|https?:\/\/\S+/g, '');
  if (proseSemicolon(t)) t = t.replace(/;\s*$/, '');
  if (CODE_TOKENS.test(t)) return true;
  const chars = t.replace(/\s/g, '').length;
  return chars > 0 && (t.match(CODE_SYMBOLS) ?? []).length >= CODE_SYMBOL_DENSITY * chars;
}
