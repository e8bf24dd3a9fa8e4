/**
 * Pages joined into one Markdown document, with a paragraph that runs over the page break
 * made whole again (issue 15): when the last block of a page is a plain paragraph (or list
 * item) that does not end a sentence and the first block of the next page is a plain paragraph
 * starting in lower case, they are one paragraph; a word hyphenated across the break is joined.
 * A table that runs over the page break is one table again (`tableContinuation`).
 * Each page's own Markdown (and its region ranges) is left as it was: only the join differs.
 */

const SENTENCE_END = /[.!?:;]["'”’)\]]*$/u;
/** Blocks that are not plain paragraph text: headings, lists, tables, fences, formulas, HTML, images, quotes. */
const NOT_PARAGRAPH = /^(#{1,6}\s|[-*+]\s|\d{1,9}[.)]\s|\||```|~~~|\$\$|<|!\[|>)/;
const LIST_ITEM = /^\s*([-*+]|\d{1,9}[.)])\s/;

function lastBlock(md: string): string {
  const i = md.lastIndexOf('\n\n');
  const block = i < 0 ? md : md.slice(i + 2);
  // A list's items are separated by single line breaks: the last item is the last line.
  return LIST_ITEM.test(block) ? block.slice(block.lastIndexOf('\n') + 1) : block;
}

function firstBlock(md: string): string {
  const i = md.indexOf('\n\n');
  return i < 0 ? md : md.slice(0, i);
}

/** The separator between two pages' Markdown: a blank line, or the join of a broken paragraph. */
export function pageSeparator(prev: string, next: string): { sep: string; dropHyphen: boolean } {
  const a = lastBlock(prev.trimEnd());
  const b = firstBlock(next.trimStart());
  const plainA = !NOT_PARAGRAPH.test(a) || LIST_ITEM.test(a);
  if (!plainA || NOT_PARAGRAPH.test(b) || /\n/.test(a.trim()) || SENTENCE_END.test(a) || !/^\p{Ll}/u.test(b))
    return { sep: '\n\n', dropHyphen: false };
  // "ei-" + "ther": a syllable break; "state-of-" + "the-art" keeps its hyphen.
  const hy = /\p{L}-$/u.test(a) && !/-\S*-$/u.test(a.split(/\s+/).pop() ?? '');
  return { sep: hy ? '' : ' ', dropHyphen: hy };
}

/** Cells of a Markdown table row (`| a | b \| c |` has two). */
function rowCells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());
}

const DELIMITER_ROW = /^\|(\s*:?-+:?\s*\|)+\s*$/;

/**
 * A table that runs over the page break: the previous page ends with a table and the next one
 * starts with a table of as many columns. The next part's first row is a body row that Markdown
 * had to print as a header; when it repeats the first part's header (a repeated header row), it is
 * dropped. Returns the next page's Markdown to append after a single newline, or undefined.
 */
export function tableContinuation(prev: string, next: string): string | undefined {
  const a = lastBlock(prev.trimEnd());
  const b = firstBlock(next.trimStart());
  if (!a.startsWith('|') || !b.startsWith('|')) return undefined;
  const aRows = a.split('\n');
  const bRows = b.split('\n');
  if (aRows.length < 2 || bRows.length < 2 || !DELIMITER_ROW.test(aRows[1]!) || !DELIMITER_ROW.test(bRows[1]!))
    return undefined;
  const cols = rowCells(aRows[0]!).length;
  if (rowCells(bRows[0]!).length !== cols || bRows.some((r, k) => k !== 1 && rowCells(r).length !== cols))
    return undefined;
  const repeated = rowCells(bRows[0]!).join('\u0000') === rowCells(aRows[0]!).join('\u0000');
  const rest = next.trimStart().split('\n');
  rest.splice(repeated ? 0 : 1, repeated ? 2 : 1);
  return rest.join('\n');
}

/** Pages' Markdown joined in order (empty pages skipped), ending with one newline. */
export function joinPageMarkdown(pages: readonly string[]): string {
  let out = '';
  for (const md of pages) {
    if (md.length === 0) continue;
    if (out.length === 0) {
      out = md;
      continue;
    }
    const table = tableContinuation(out, md);
    if (table !== undefined) {
      out = out.trimEnd() + '\n' + table;
      continue;
    }
    const { sep, dropHyphen } = pageSeparator(out, md);
    out =
      (dropHyphen ? out.trimEnd().slice(0, -1) : sep === '\n\n' ? out : out.trimEnd()) +
      sep +
      (sep === '\n\n' ? md : md.trimStart());
  }
  return out.length > 0 ? out + '\n' : '';
}
