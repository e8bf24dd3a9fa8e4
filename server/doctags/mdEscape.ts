/**
 * Escaping PDF text for Markdown. The rule: a character is escaped only where it would change
 * the structure (start a heading, list, quote, code, emphasis, link, math) or become HTML. `<`
 * is always written as `&lt;`, so PDF text such as `<img src=x onerror=alert(1)>` renders as
 * text in every Markdown viewer, including Folio's preview.
 */

function isWordChar(ch: string | undefined): boolean {
  return ch !== undefined && /[\p{L}\p{N}]/u.test(ch);
}

/** Escapes that apply anywhere in a line. */
export function escapeInline(text: string): string {
  const dollars = (text.match(/\$/g) ?? []).length;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    const next = text[i + 1];
    switch (ch) {
      case '\\':
        // Always doubled: a single one before punctuation would escape it, and a rule that depends
        // on the next character breaks as soon as something else is escaped after it (a caption's
        // `a\](/etc/hostname)` once closed a picture's alt text; issue 21 item 2).
        out += '\\\\';
        break;
      case '<':
        out += '&lt;';
        break;
      case '&':
        // Only an entity-looking run (`&amp;`, `&#60;`) would be decoded.
        out += /^&(#\d{1,7}|#x[0-9a-f]{1,6}|[a-z][a-z0-9]{1,31});/i.test(text.slice(i)) ? '&amp;' : '&';
        break;
      case '`':
      case '*':
        out += '\\' + ch;
        break;
      case '_':
        // Intraword underscores (snake_case) never make emphasis in CommonMark.
        out += isWordChar(text[i - 1]) && isWordChar(next) ? '_' : '\\_';
        break;
      case ']':
        // `[x](y)`, `[x][y]` and `[x]:` would become links.
        out += next === '(' || next === '[' || next === ':' ? '\\]' : ']';
        break;
      case '$':
        // Two dollars in a block could pair up as math in a math-aware viewer.
        out += dollars >= 2 ? '\\$' : '$';
        break;
      case '~':
        out += next === '~' || text[i - 1] === '~' ? '\\~' : '~';
        break;
      default:
        out += ch;
    }
  }
  return out;
}

/**
 * Escapes a line's start where Markdown would read block structure. Takes an already
 * inline-escaped line.
 */
export function escapeLineStart(line: string): string {
  // Four leading spaces would make an indented code block; leading blanks carry nothing here.
  const s = line.replace(/^[ \t]+/, '');
  let m: RegExpExecArray | null;
  if (/^#{1,6}(\s|$)/.test(s)) return '\\' + s;
  if (/^[>+-](\s|$)/.test(s)) return '\\' + s;
  if ((m = /^(\d{1,9})([.)])(\s|$)/.exec(s))) return m[1] + '\\' + s.slice(m[1]!.length);
  if (/^(=+|-+)\s*$/.test(s)) return '\\' + s; // setext underline or thematic break
  if (/^~~~/.test(s)) return '\\' + s;
  if (/^\|/.test(s)) return '\\' + s; // could pair with a following line as a table
  return s;
}

/** Paragraph text: lines kept (no blank lines, which would split the block), each escaped. */
export function escapeBlock(text: string): string {
  return text
    .split(/\s*\n\s*/)
    .filter((l) => l.length > 0)
    .map((l) => escapeLineStart(escapeInline(l)))
    .join('\n');
}

/** One-line text (headings, list items, table cells): line breaks become spaces. */
export function escapeOneLine(text: string): string {
  return escapeLineStart(escapeInline(text.replace(/\s*\n\s*/g, ' ').trim()));
}

/**
 * ATX heading content: inline escapes and a trailing `#` run, which would be read as a closing
 * sequence. A heading's content starts no block, so a section number stays "## 1. Introduction"
 * (not "1\."), as readers and olmOCR-style checks expect.
 */
export function escapeHeading(text: string): string {
  return escapeInline(text.replace(/\s*\n\s*/g, ' ').trim()).replace(/(^|\s)(#+)$/, '$1\\$2');
}

/**
 * Link or image text (a picture's alt text from its caption): one line, with a backslash before
 * every character Markdown reads inside it (brackets, parentheses, emphasis, code, HTML,
 * entities, math) and before every backslash, so the text can neither close the brackets nor
 * become a link target of its own.
 */
export function escapeLinkText(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\\`*_{}[\]()<>#!&~|$]/g, '\\$&');
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
