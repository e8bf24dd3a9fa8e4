/**
 * A small Markdown block reader for scoring: it finds headings, paragraphs, list items, tables
 * (GFM and HTML), code blocks, display formulas and picture placeholders in the order they
 * appear. It is lenient on purpose: converters and ground truth both write slightly different
 * Markdown dialects, and the metrics compare content, not syntax.
 */
import { stripInline } from './normalize';
import { PIPE_SEPARATOR, parseHtmlTable, parsePipeTable, type Table } from './table';

export type BlockKind = 'heading' | 'paragraph' | 'list_item' | 'table' | 'code' | 'formula' | 'picture';

export interface Block {
  kind: BlockKind;
  /** Plain text of the block (inline syntax stripped; a table's cells joined row by row). */
  text: string;
  /** heading: 1–6. list_item: indentation depth, 0 = top level. */
  level?: number;
  ordered?: boolean;
  table?: Table;
  /** formula: the raw source between the delimiters (may be empty for a placeholder). */
  source?: string;
}

const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const LIST = /^([ \t]*)([-*+\u2022]|\d{1,9}[.)])[ \t]+(.*)$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const HR = /^ {0,3}([-*_])([ \t]*\1){2,}[ \t]*$/;
const FORMULA_PLACEHOLDER = /^<!--\s*formula[^>]*-->$/i;
const IMAGE_PLACEHOLDER = /^(<!--\s*image\s*-->|!\[[^\]]*\]\([^)]*\))$/i;

export function tableText(t: Table): string {
  return t.rows.map((r) => r.map((c) => c.text).join(' ')).join(' ');
}

function indentWidth(ws: string): number {
  let w = 0;
  for (const ch of ws) w += ch === '\t' ? 4 : 1;
  return w;
}

/** Read Markdown into blocks, in document order. */
export function parseMarkdown(md: string): Block[] {
  const lines = md.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let para: string[] = [];
  // Indentation columns of the open list, to turn indents into nesting depths.
  let listIndents: number[] = [];
  const flush = () => {
    if (para.length) blocks.push({ kind: 'paragraph', text: stripInline(para.join(' ')) });
    para = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const trimmed = line.trim();
    if (trimmed === '') {
      flush();
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      flush();
      const body: string[] = [];
      const close = fence[1][0].repeat(fence[1].length);
      const lang = trimmed.slice(fence[1].length).trim().toLowerCase();
      i++;
      while (i < lines.length && !lines[i].trim().startsWith(close)) body.push(lines[i++]);
      if (lang === 'math' || lang === 'latex')
        blocks.push({ kind: 'formula', text: body.join(' '), source: body.join('\n') });
      else blocks.push({ kind: 'code', text: body.join('\n') });
      continue;
    }
    if (trimmed.startsWith('$$') || trimmed.startsWith('\\[')) {
      flush();
      const close = trimmed.startsWith('$$') ? '$$' : '\\]';
      let src = trimmed.slice(2);
      if (src.trimEnd().endsWith(close)) src = src.trimEnd().slice(0, -2);
      else {
        const body = [src];
        i++;
        while (i < lines.length && !lines[i].includes(close)) body.push(lines[i++]);
        if (i < lines.length) body.push(lines[i].slice(0, lines[i].indexOf(close)));
        src = body.join('\n');
      }
      blocks.push({ kind: 'formula', text: src.trim(), source: src.trim() });
      continue;
    }
    if (FORMULA_PLACEHOLDER.test(trimmed)) {
      flush();
      blocks.push({ kind: 'formula', text: '', source: '' });
      continue;
    }
    if (IMAGE_PLACEHOLDER.test(trimmed)) {
      flush();
      blocks.push({ kind: 'picture', text: '' });
      continue;
    }
    if (/^<table\b/i.test(trimmed)) {
      flush();
      const html = [line];
      while (!/<\/table>/i.test(lines[i]) && i + 1 < lines.length) html.push(lines[++i]);
      const table = parseHtmlTable(html.join('\n'));
      blocks.push({ kind: 'table', text: tableText(table), table });
      continue;
    }
    if (
      trimmed.includes('|') &&
      i + 1 < lines.length &&
      PIPE_SEPARATOR.test(lines[i + 1]) &&
      lines[i + 1].includes('-')
    ) {
      flush();
      const tl = [line, lines[i + 1]];
      i += 2;
      while (i < lines.length && lines[i].trim() !== '' && lines[i].includes('|')) tl.push(lines[i++]);
      i--;
      const table = parsePipeTable(tl);
      for (const r of table.rows) for (const c of r) c.text = stripInline(c.text);
      blocks.push({ kind: 'table', text: tableText(table), table });
      continue;
    }
    const atx = ATX.exec(line);
    if (atx) {
      flush();
      blocks.push({ kind: 'heading', level: atx[1].length, text: stripInline(atx[2] ?? '') });
      continue;
    }
    // Setext heading: a paragraph line underlined with === or ---.
    if (para.length === 1 && /^ {0,3}(=+|-+)[ \t]*$/.test(line)) {
      blocks.push({ kind: 'heading', level: trimmed[0] === '=' ? 1 : 2, text: stripInline(para[0]) });
      para = [];
      continue;
    }
    if (HR.test(line)) {
      flush();
      continue;
    }
    const li = LIST.exec(line);
    if (li && (para.length === 0 || li[1].length > 0 || /^\d/.test(li[2]) === false)) {
      flush();
      const ind = indentWidth(li[1]);
      listIndents = listIndents.filter((x) => x < ind);
      listIndents.push(ind);
      blocks.push({
        kind: 'list_item',
        level: listIndents.length - 1,
        ordered: /\d/.test(li[2]),
        text: stripInline(li[3]),
      });
      continue;
    }
    const quote = /^ {0,3}>[ \t]?(.*)$/.exec(line);
    const content = quote ? quote[1] : trimmed;
    // A continuation line of a list item (indented, no blank line before) belongs to it.
    const prev = blocks[blocks.length - 1];
    if (para.length === 0 && prev?.kind === 'list_item' && /^[ \t]+/.test(line) && lines[i - 1]?.trim() !== '') {
      prev.text += ' ' + stripInline(content);
      continue;
    }
    if (para.length === 0 && !(prev?.kind === 'list_item' && lines[i - 1]?.trim() !== '')) listIndents = [];
    para.push(content);
  }
  flush();
  return blocks;
}

/**
 * Plain text of a plain-text converter's output (pdftotext, PyMuPDF): paragraphs split at
 * blank lines, no Markdown syntax interpreted (a "*" or "#" in such output is page text).
 */
export function parsePlainText(text: string): Block[] {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/\f/g, '\n\n')
    .split(/\n[ \t]*\n/)
    .map((p) => p.trim())
    .filter((p) => p !== '')
    .map((p) => ({ kind: 'paragraph' as const, text: p }));
}

/** The text of every block, in order, as one string (for edit distance and reading order). */
export function blocksText(blocks: Block[]): string {
  return blocks
    .filter((b) => b.kind !== 'picture')
    .map((b) => b.text)
    .join('\n');
}
