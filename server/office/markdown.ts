/**
 * Markdown → Folio's items through marked's lexer (CommonMark + GFM tables), as Docling passes a
 * `.md` through its document model: headings (`#` the title, `##` a level-1 section…), paragraphs,
 * lists with their start and nesting, tables, code with its language, block quotes as text,
 * images as pictures (never fetched). A raw HTML block (a `<table>`, a `<div>` of paragraphs and
 * lists) is read by Folio's HTML reader, as Docling hands a Markdown file's HTML to its HTML
 * backend: nothing in it is run or fetched, a comment is dropped.
 */
import { Lexer, type Token, type Tokens } from 'marked';
import { parseFragment } from 'parse5';
import { readHtml } from '../html/html';
import type { DocItem, OtslCell } from '../model/items';
import { tidy } from './text';
import { LETTER, type ReadOptions, type StructuredDocument } from './types';

/** Plain text of inline tokens (emphasis, links and code spans keep their words). */
function inlineText(tokens: Token[] | undefined, fallback = ''): string {
  if (!tokens) return fallback;
  let s = '';
  for (const t of tokens) {
    switch (t.type) {
      case 'br':
        s += ' ';
        break;
      case 'image':
        s += (t as Tokens.Image).text;
        break;
      case 'codespan':
        s += (t as Tokens.Codespan).text;
        break;
      case 'escape':
        s += (t as Tokens.Escape).text;
        break;
      default: {
        const withKids = t as { tokens?: Token[]; text?: string; raw: string };
        s += withKids.tokens ? inlineText(withKids.tokens) : (withKids.text ?? withKids.raw);
      }
    }
  }
  return decodeEntities(s);
}

/**
 * Character references left in inline text, each read once (`&amp;lt;` is the text `&lt;`).
 * CommonMark takes every HTML5 named reference with its semicolon (`&vert;`, `&copy;`), so the
 * name is looked up by parse5, the HTML parser Folio already has, in its own table; an unknown
 * name stays as written. marked has already read the numeric ones.
 */
function decodeEntities(s: string): string {
  return s.replace(/&(?:[A-Za-z][A-Za-z0-9]{1,31}|#\d{1,7}|#[xX][0-9a-fA-F]{1,6});/g, (ref) => {
    const node = parseFragment(ref).childNodes[0];
    return node && node.nodeName === '#text' && 'value' in node ? node.value : ref;
  });
}

function listItems(l: Tokens.List, out: DocItem[], depth: number): void {
  let n = typeof l.start === 'number' ? l.start : 1;
  for (const item of l.items) {
    const first = item.tokens.find((x) => x.type === 'text' || x.type === 'paragraph') as
      Tokens.Text | Tokens.Paragraph | undefined;
    const text = tidy(first ? inlineText(first.tokens, first.text) : '');
    if (item.task) out.push({ cls: item.checked ? 'checkbox_selected' : 'checkbox_unselected', text });
    else
      out.push({
        cls: 'list_item',
        level: depth,
        ordered: l.ordered,
        marker: l.ordered ? `${n}.` : undefined,
        text,
      });
    n++;
    const rest = item.tokens.filter((x) => x !== first);
    const nested: DocItem[] = [];
    blocks(rest, nested, depth + 1);
    out.push(...nested);
  }
}

function tableItem(tb: Tokens.Table): DocItem {
  const cell = (c: Tokens.TableCell, tag: 'ched' | 'fcel'): OtslCell => {
    const text = tidy(inlineText(c.tokens, c.text));
    return { tag: text ? tag : 'ecel', text };
  };
  const rows = [tb.header.map((c) => cell(c, 'ched')), ...tb.rows.map((r) => r.map((c) => cell(c, 'fcel')))];
  return { cls: 'table', text: '', table: rows };
}

/**
 * The HTML of a run of raw HTML blocks from `tokens[i]` on (blank lines between them end a
 * CommonMark HTML block but not the element it opened: `<table>` … blank line … `</table>`).
 */
function htmlRun(tokens: Token[], i: number): { html: string; next: number } {
  let html = '';
  let j = i;
  while (
    j < tokens.length &&
    ((tokens[j].type === 'html' && (tokens[j] as Tokens.HTML).block) || tokens[j].type === 'space')
  ) {
    html += tokens[j].raw;
    j++;
  }
  return { html, next: j };
}

function blocks(tokens: Token[], out: DocItem[], depth = 0): void {
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.type === 'html' && (t as Tokens.HTML).block) {
      const run = htmlRun(tokens, i);
      i = run.next - 1;
      for (const page of readHtml(run.html).pages)
        for (const it of page.items) out.push(it.cls === 'list_item' ? { ...it, level: (it.level ?? 0) + depth } : it);
      continue;
    }
    switch (t.type) {
      case 'heading': {
        const h = t as Tokens.Heading;
        const text = tidy(inlineText(h.tokens, h.text));
        if (text)
          out.push(h.depth === 1 ? { cls: 'title', text } : { cls: 'section_header', level: h.depth - 1, text });
        break;
      }
      case 'paragraph': {
        const p = t as Tokens.Paragraph;
        const images = (p.tokens ?? []).filter((x) => x.type === 'image');
        const text = tidy(
          inlineText(
            p.tokens.filter((x) => x.type !== 'image'),
            p.text,
          ),
        );
        if (text) out.push({ cls: 'text', text });
        for (const img of images) {
          const alt = tidy((img as Tokens.Image).text);
          out.push({ cls: 'picture', text: '', ...(alt ? { caption: { cls: 'caption', text: alt } } : {}) });
        }
        break;
      }
      case 'text': {
        const x = t as Tokens.Text;
        const text = tidy(inlineText(x.tokens, x.text));
        if (text) out.push({ cls: 'text', text });
        break;
      }
      case 'list':
        listItems(t as Tokens.List, out, depth);
        break;
      case 'table':
        out.push(tableItem(t as Tokens.Table));
        break;
      case 'code': {
        const c = t as Tokens.Code;
        const item: DocItem = { cls: 'code', text: c.text };
        if (c.lang) item.language = c.lang.trim().split(/\s+/)[0];
        out.push(item);
        break;
      }
      case 'blockquote':
        blocks((t as Tokens.Blockquote).tokens, out, depth);
        break;
      case 'html': {
        const text = tidy((t as Tokens.HTML).text);
        if (text) out.push({ cls: 'text', text });
        break;
      }
      default:
        break; // space, hr, def
    }
  }
}

export function readMarkdown(text: string, _opts: ReadOptions = {}): StructuredDocument {
  const items: DocItem[] = [];
  blocks(new Lexer({ gfm: true }).lex(text), items);
  return { format: 'md', pages: [{ page: 1, ...LETTER, items }], warnings: [] };
}
