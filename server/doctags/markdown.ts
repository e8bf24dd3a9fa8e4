/**
 * The one DocTags → Markdown converter (document model → Markdown), used for the pipeline's
 * pages, the VLM's parsed output and single regions. It follows docling's Markdown where docling
 * has a convention (headings `#` title / `##` level 1, `-` and `1.` lists indented 4 spaces per
 * level, captions before tables and pictures but after code, `<!-- image -->`,
 * `<!-- formula-not-decoded -->`) and returns, for each item, the range of Markdown it wrote
 * so the preview can link boxes and text.
 */
import type { TextRange } from '../../common/protocol';
import { chartKindLine, type DocItem } from '../model/items';
import { escapeBlock, escapeHeading, escapeInline, escapeLineStart, escapeLinkText, escapeOneLine } from './mdEscape';
import { numberOfLabel } from './listLabel';
import { tableToMarkdown } from './mdTable';

export interface MarkdownOptions {
  /** Keep page headers and footers (left out by default, as docling does). */
  keepFurniture?: boolean;
}

/** List numbering carried from block to block (and from page to page). */
interface ListState {
  /** The previous block written was a list item at this visual depth; -1 when it was not a list item. */
  depth: number;
  /** Per depth: ordered-ness of the open list and the last number used. */
  ordered: boolean[];
  counters: number[];
  /** Per depth: width of the open item's marker and space ("212. " is 5), which its children indent past. */
  widths: number[];
}

function freshState(): ListState {
  return { depth: -1, ordered: [], counters: [], widths: [] };
}

function fence(code: string): string {
  const longest = (code.match(/`+/g) ?? []).reduce((m, s) => Math.max(m, s.length), 0);
  return '`'.repeat(Math.max(3, longest + 1));
}

function codeBlock(item: DocItem): string {
  const code = item.text.replace(/^\n+|\s+$/g, '');
  const f = fence(code);
  const lang = (item.language ?? '').replace(/[^\w+#.-]/g, '');
  return `${f}${lang}\n${code}\n${f}`;
}

function formulaBlock(item: DocItem): string {
  const tex = item.text.trim();
  return tex ? `$$${tex}$$` : '<!-- formula-not-decoded -->';
}

/**
 * Running text with inline math: text parts escaped as usual, math parts as `$…$` (a math-aware
 * viewer typesets them; the preview does with KaTeX). Undefined when the item has no math.
 */
function inlineMath(item: DocItem): string | undefined {
  if (!item.parts || !item.parts.some((p) => p.math)) return undefined;
  const out = item.parts
    .map((p) => (p.math ? `$${p.text.replace(/\s+/g, ' ').trim()}$` : escapeInline(p.text.replace(/\s*\n\s*/g, ' '))))
    .join('')
    .trim();
  return escapeLineStart(out);
}

/**
 * A relative file path as a Markdown link target: each segment percent-encoded (`#`, `%`, spaces,
 * brackets…). An embedded picture (`--images embed`: a base64 PNG data URI, which holds no
 * character that needs encoding) passes as it is.
 */
function linkTarget(path: string): string {
  if (/^data:image\/png;base64,[A-Za-z0-9+/=]*$/.test(path)) return path;
  return path
    .replace(/\\/g, '/')
    .split('/')
    .map((seg) => encodeURIComponent(seg).replace(/[()!'*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase()))
    .join('/');
}

function pictureBlock(item: DocItem): string {
  const alt = escapeLinkText(item.caption?.text ?? '');
  let out = item.imagePath ? `![${alt}](${linkTarget(item.imagePath)})` : '<!-- image -->';
  // A chart's kind as Docling's Markdown writes a picture's class, between image and data.
  if (item.cls === 'chart' && item.chartKind) out += '\n\n' + chartKindLine(item.chartKind);
  // A chart whose data was read: give the data as a table too.
  if (item.table && item.table.length > 0) {
    const t = tableToMarkdown(item.table);
    if (t) out += '\n\n' + t;
  }
  return out;
}

function captionText(item: DocItem): string {
  if (item.caption) {
    const m = inlineMath(item.caption);
    if (m !== undefined) return m;
  }
  const t = item.caption?.text.trim();
  return t ? escapeBlock(t) : '';
}

function joinParts(...parts: string[]): string {
  return parts.filter((p) => p.length > 0).join('\n\n');
}

function listItemLine(item: DocItem, state: ListState): string {
  // Visual depth: never deeper than one below the previous item, else Markdown reads an
  // indented code block instead of a nested list.
  const wanted = Math.max(0, Math.round(item.level ?? 0));
  const depth = Math.min(wanted, state.depth + 1);
  const ordered = item.ordered === true;
  if (state.depth < depth || state.ordered[depth] !== ordered) {
    state.counters[depth] = 0;
    state.ordered[depth] = ordered;
  }
  state.ordered.length = depth + 1;
  state.counters.length = depth + 1;
  state.counters[depth] = (state.counters[depth] ?? 0) + 1;
  state.depth = depth;
  const body = inlineMath(item) ?? escapeOneLine(item.text);
  let marker = ordered ? `${state.counters[depth]}.` : '-';
  let label = '';
  if (ordered && item.marker) {
    // The document's own label: a number is the list marker itself (CommonMark lists may start
    // at any number, "212." then "213."); a letter, roman or parenthesised label stays text in
    // a bullet item, where Markdown reads it as written ("- (a) …", "- a. Syntax").
    const num = numberOfLabel(item.marker);
    if (num) {
      state.counters[depth] = num.n;
      marker = `${num.n}${num.delim}`;
    } else {
      marker = '-';
      label = item.marker + ' ';
    }
  }
  state.widths.length = depth;
  // A child sits past its parent's marker (CommonMark), at least 4 spaces per level as before.
  const indent = Array.from({ length: depth }, (_, d) => Math.max(4, state.widths[d] ?? 4)).reduce((a, b) => a + b, 0);
  state.widths[depth] = marker.length + 1;
  return ' '.repeat(indent) + marker + ' ' + label + body;
}

/** The Markdown of one block (no list context: a list item is written at its own level). */
function blockOf(item: DocItem, opts: MarkdownOptions): string {
  switch (item.cls) {
    case 'title':
      return item.text.trim() ? '# ' + escapeHeading(item.text) : '';
    case 'section_header': {
      const level = Math.min(6, Math.max(2, Math.round(item.level ?? 1) + 1));
      return item.text.trim() ? '#'.repeat(level) + ' ' + escapeHeading(item.text) : '';
    }
    case 'page_header':
    case 'page_footer':
      return opts.keepFurniture ? escapeBlock(item.text) : '';
    case 'checkbox_selected':
    case 'checkbox_unselected':
      return `- [${item.cls === 'checkbox_selected' ? 'x' : ' '}] ` + escapeOneLine(item.text);
    case 'code':
      return joinParts(codeBlock(item), captionText(item));
    case 'formula':
      return joinParts(formulaBlock(item), captionText(item));
    case 'picture':
    case 'chart':
      return joinParts(captionText(item), pictureBlock(item));
    case 'table': {
      const t = tableToMarkdown(item.table ?? []);
      return joinParts(captionText(item), t || (item.caption?.text.trim() ? '' : '<!-- table -->'));
    }
    case 'document_index':
      // A table of contents: a table of title and page, as docling writes its document index.
      if (item.table?.length) return joinParts(captionText(item), tableToMarkdown(item.table));
      return escapeBlock(item.text);
    case 'list_item': {
      const st = freshState();
      st.depth = Math.max(0, Math.round(item.level ?? 0)) - 1;
      return listItemLine(item, st);
    }
    default:
      return inlineMath(item) ?? escapeBlock(item.text);
  }
}

function render(
  items: DocItem[],
  opts: MarkdownOptions,
  state: ListState,
): { markdown: string; ranges: (TextRange | undefined)[] } {
  let md = '';
  const ranges: (TextRange | undefined)[] = [];
  for (const item of items) {
    const isList = item.cls === 'list_item';
    const continuing = isList && state.depth >= 0;
    const block = isList ? (item.text.trim() ? listItemLine(item, state) : '') : blockOf(item, opts);
    if (!block) {
      // Nothing written (furniture left out, an empty item): a list around it goes on.
      ranges.push(undefined);
      continue;
    }
    if (!isList) state.depth = -1;
    // Items of one list are separated by a line break, everything else by a blank line.
    if (md) md += continuing ? '\n' : '\n\n';
    ranges.push({ start: md.length, end: md.length + block.length });
    md += block;
  }
  return { markdown: md, ranges };
}

export function pageToMarkdown(
  items: DocItem[],
  opts: MarkdownOptions = {},
): { markdown: string; ranges: (TextRange | undefined)[] } {
  return render(items, opts, freshState());
}

/**
 * Pages joined by a blank line. A list that runs over a page break keeps its numbering (the
 * blank line makes it a loose list in CommonMark, but the same list).
 */
export function documentToMarkdown(pages: DocItem[][], opts: MarkdownOptions = {}): string {
  const state = freshState();
  const parts: string[] = [];
  for (const items of pages) {
    const { markdown } = render(items, opts, state);
    if (markdown) parts.push(markdown);
  }
  return parts.join('\n\n');
}

/** The Markdown of one item alone (region reparse). */
export function renderRegionMarkdown(item: DocItem, opts: MarkdownOptions = {}): string {
  return blockOf(item, { keepFurniture: true, ...opts });
}
