/**
 * Text normalization for comparing a converter's output with ground truth. Both sides go
 * through the same function, so differences that carry no meaning for a reader (typographic
 * quotes, dash variants, ligatures, odd spaces, line wrapping) do not count as errors.
 */

const QUOTES: [RegExp, string][] = [
  [/[\u2018\u2019\u201A\u201B\u2032\u00B4\u0060]/g, "'"],
  [/[\u201C\u201D\u201E\u201F\u2033\u00AB\u00BB]/g, '"'],
];
// Hyphen, non-breaking hyphen, figure dash, en/em dash, horizontal bar, minus sign.
const DASHES = /[\u2010\u2011\u2012\u2013\u2014\u2015\u2212\uFE58\uFE63\uFF0D]/g;
// Soft hyphen and zero-width characters carry nothing a reader sees.
const INVISIBLE = /\u00AD|\u200B|\u200C|\u200D|\u2060|\uFEFF/g;
// Bullet glyphs at the start of a line: a plain-text extractor keeps them, Markdown writes "- ".
const LEADING_BULLET =
  /^[ \t]*[\u2022\u25E6\u25AA\u25AB\u25CF\u25CB\u25A0\u25A1\u2023\u2043\u2219\u00B7\uF0B7\uF0A7-][ \t]+/gm;

/**
 * Normalize text for comparison: NFKC (expands ligatures such as "ﬁ" and full-width forms),
 * one quote and dash form, invisible characters removed, leading bullet glyphs removed, every
 * run of whitespace (including line breaks) collapsed to one space, trimmed.
 */
export function normalizeText(s: string): string {
  let t = s.normalize('NFKC');
  for (const [re, rep] of QUOTES) t = t.replace(re, rep);
  t = t.replace(DASHES, '-').replace(INVISIBLE, '');
  t = t.replace(LEADING_BULLET, '');
  return t.replace(/\s+/g, ' ').trim();
}

/** A looser key for fuzzy matching of short strings (headings, cells): lower case, no punctuation. */
export function matchKey(s: string): string {
  return normalizeText(s)
    .toLowerCase()
    .replace(/[^\p{L}\p{N} ]+/gu, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Strip inline Markdown syntax from one block's text: emphasis, inline code ticks, links
 * (keep the text), images (dropped: their alt text is not page text), HTML tags and comments,
 * backslash escapes, inline math delimiters.
 */
export function stripInline(s: string): string {
  let t = s;
  t = t.replace(/<!--[\s\S]*?-->/g, ' ');
  t = t.replace(/!\[[^\]]*\]\([^)]*\)/g, ' ');
  t = t.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
  t = t.replace(/<(https?:\/\/[^>\s]+)>/g, '$1');
  t = t.replace(/<\/?[A-Za-z][^>]*>/g, ' ');
  t = t.replace(/`+([^`]*)`+/g, '$1');
  t = t.replace(/\*\*|__|~~/g, '');
  t = t.replace(/(^|[^\p{L}\p{N}\\])[*_]([^\s*_](?:[^*_]*[^\s*_])?)[*_](?=[^\p{L}\p{N}]|$)/gu, '$1$2');
  t = t.replace(/\$\$?([^$]+)\$\$?/g, '$1');
  t = t.replace(/\\([!-/:-@[-`{-~])/g, '$1');
  // One pass, so `&amp;#124;` stays the text `&#124;`. Numeric references render as their
  // character: Docling writes a pipe in a cell as `&#124;`, Folio as `\|`; both show "|".
  t = t.replace(/&(nbsp|amp|lt|gt|quot|#\d{1,7}|#[xX][0-9a-fA-F]{1,6});/g, (m, e: string) => {
    const named = NAMED[e];
    if (named !== undefined) return named;
    if (e[0] !== '#') return m;
    const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : m;
  });
  return t;
}

const NAMED: Record<string, string> = { nbsp: ' ', amp: '&', lt: '<', gt: '>', quot: '"' };
