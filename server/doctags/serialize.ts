/**
 * Document model → DocTags, in docling-core's "human friendly" layout: one element per line,
 * list items wrapped in `<ordered_list>` / `<unordered_list>`, tables as OTSL, captions inside
 * their floating element, `<page_break>` between pages.
 *
 * Text is encoded (`escapeText`): PDF text is untrusted, and written raw, text such as
 * `x</text><section_header_level_1>…` or `</code>` would become structure when the DocTags are
 * read back (issue 21 item 11). docling-core's DocLang serializer escapes text the same way
 * (`xml.sax.saxutils.escape`); its legacy DocTags writer does not. The tokenizer decodes it.
 */
import type { GridBox } from '../../common/protocol';
import type { DocItem, InlinePart, OtslCell } from '../model/items';
import { tagOfItem } from './vocab';
import { isListLabel } from './listLabel';

/**
 * `<` as `&lt;` where it could start a tag (before a letter, `/`, `_`, `!` or `?`); `&` only
 * where it starts one of the three entities the tokenizer decodes (`&lt;` `&gt;` `&amp;`). Other
 * text is written as it is (`x<0`, `i>W`, `R&D`), as docling-core writes DocTags: its reader
 * (`DoclingDocument.load_from_doctags`) decodes no entity, so an escape it did not need would
 * stay in the text, while a tag-like `<b>` is removed by any reader; Folio's tokenizer reads a
 * `<` that starts no tag as text.
 */
export function escapeText(text: string): string {
  return text.replace(/&(?=(?:lt|gt|amp);)|<(?=[A-Za-z/_!?])/g, (c) => (c === '<' ? '&lt;' : '&amp;'));
}

function wrap(tag: string, body: string): string {
  return `<${tag}>${body}</${tag}>`;
}

export function locTokens(grid: GridBox | undefined): string {
  if (!grid) return '';
  return grid.map((v) => `<loc_${Math.min(499, Math.max(0, Math.round(v)))}>`).join('');
}

/** docling writes the code language as `<_Name_>` and `<_unknown_>` when it does not know it. */
function languageToken(language: string | undefined): string {
  const name = (language ?? '').replace(/[<>\s]/g, '');
  return `<_${name || 'unknown'}_>`;
}

function otslBody(rows: OtslCell[][]): string {
  let out = '';
  for (const row of rows) {
    for (const cell of row) {
      const carriesText = cell.tag !== 'ecel' && cell.tag !== 'lcel' && cell.tag !== 'ucel' && cell.tag !== 'xcel';
      out += `<${cell.tag}>` + (carriesText ? escapeText(cell.text.trim()) : '');
    }
    out += '<nl>';
  }
  return out;
}

function captionOf(item: DocItem): string {
  const c = item.caption;
  if (!c || (!c.text.trim() && !c.grid)) return '';
  return wrap('caption', locTokens(c.grid) + escapeText(c.text.trim()));
}

/**
 * Text with inline math as docling's inline group: `<text>` and `<formula>` children in order
 * (no location of their own: the group's is the item's). `dollars`: each formula's LaTeX is
 * written between `$…$` inside its `<formula>`. docling-core's reader reads an inline group as
 * one only at the top level (a paragraph); inside another element (a list item, a heading, a
 * caption) it strips every tag from the element's text (`load_from_doctags`: `extract_inner_text`,
 * and list items likewise, docling-core b7a4298 docling_core/types/doc/document.py), so without
 * the dollars a formula there would read as plain text. Folio's reader takes them off again.
 */
export function inlineBody(parts: InlinePart[], dollars = false): string {
  return parts
    .map((p) =>
      p.math
        ? wrap('formula', escapeText(dollars ? `$${p.text.trim()}$` : p.text.trim()))
        : wrap('text', escapeText(p.text)),
    )
    .join('');
}

function hasMath(item: DocItem): item is DocItem & { parts: InlinePart[] } {
  return item.parts !== undefined && item.parts.some((p) => p.math);
}

/** The item with its label written at the start of its text (and of its inline parts). */
function withLabelInText(item: DocItem, label: string): DocItem {
  const out: DocItem = { ...item, text: label + ' ' + item.text.trim() };
  delete out.marker;
  if (item.parts) {
    const first = item.parts[0];
    out.parts =
      first && !first.math
        ? [{ math: false, text: label + ' ' + first.text.replace(/^\s+/, '') }, ...item.parts.slice(1)]
        : [{ math: false, text: label + ' ' }, ...item.parts];
  }
  return out;
}

/**
 * One element (a list item is written without its enclosing list). `labelImplied`: the item's
 * label is the number a reader gives it by its place in the list (serializePage), so it is not
 * written.
 */
export function serializeItem(item: DocItem, labelImplied = false): string {
  if (item.cls === 'list_item' && item.ordered === true && item.marker && isListLabel(item.marker) && !labelImplied) {
    item = withLabelInText(item, item.marker);
  }
  const tag = tagOfItem(item.cls, item.level);
  const loc = locTokens(item.grid);
  if (
    hasMath(item) &&
    item.cls !== 'table' &&
    item.cls !== 'document_index' &&
    item.cls !== 'picture' &&
    item.cls !== 'chart' &&
    item.cls !== 'code' &&
    item.cls !== 'formula'
  ) {
    // A paragraph is the inline group itself, as docling writes it; other elements hold one.
    if (item.cls === 'text') return wrap('inline', loc + inlineBody(item.parts));
    return wrap(tag, loc + wrap('inline', inlineBody(item.parts, true)));
  }
  switch (item.cls) {
    case 'table':
      return wrap(tag, loc + otslBody(item.table ?? []) + captionOf(item));
    case 'document_index':
      return item.table?.length
        ? wrap(tag, loc + otslBody(item.table) + captionOf(item))
        : wrap(tag, loc + escapeText(item.text.trim()));
    case 'picture':
    case 'chart':
      // A chart may carry its kind (docling's classification token) and its data as OTSL, as
      // docling writes a picture's class and tabular chart data.
      return wrap(
        tag,
        loc +
          (item.cls === 'chart' && item.chartKind ? `<${item.chartKind}>` : '') +
          (item.table && item.table.length > 0 ? otslBody(item.table) : '') +
          captionOf(item),
      );
    case 'code':
      // Code keeps its own whitespace (line breaks, indentation); everything else is trimmed.
      return wrap(tag, loc + languageToken(item.language) + escapeText(item.text) + captionOf(item));
    case 'formula':
      return wrap(tag, loc + escapeText(item.text.trim()) + captionOf(item));
    default:
      return wrap(tag, loc + escapeText(item.text.trim()));
  }
}

/** A list being written: its kind, its items so far and where they are in the lines. */
interface OpenList {
  ordered: boolean;
  /** Items so far at this list's own level. */
  place: number;
  /** Whether every label so far was its place ("1.", "2.", …). */
  sequential: boolean;
  /** Whether every item so far has a label of its own (listLabel.ts). */
  labelled: boolean;
  /** The line holding the opening tag. */
  openLine: number;
  /** The list's own items: the line each starts and what comes before it there (the opening tag). */
  members: { line: number; prefix: string; item: DocItem }[];
  /** A list inside it was written unordered for its labels. */
  holdsLabelled: boolean;
}

/**
 * Items in reading order → the page's DocTags. Runs of list items become (nested) list groups:
 * a deeper item opens a list inside the current one, as docling nests list groups.
 *
 * Printed labels, as docling-core's reader (`DoclingDocument.load_from_doctags`, docling-core
 * b7a4298) reads them: it numbers the items of an `<ordered_list>` itself ("1.", "2.", …, as
 * `marker`) and keeps an item's text whole; in an `<unordered_list>` an item has no marker.
 * - An ordered list labelled 1., 2., … in order: the labels are left out (its numbers are the
 *   reader's); Folio's reader numbers them the same way.
 * - An ordered list whose every item has a label of its own, not that numbering ("3)", "(a)",
 *   "212."): written as an `<unordered_list>` with each label at the start of its item's text,
 *   as the page prints it. As an `<ordered_list>` the reader would print both ("1. 3) is
 *   offset"); this way it prints the label once ("- 3) is offset"). Folio's reader reads an
 *   unordered list whose every item starts with a label as that ordered list again (parse.ts).
 * - Otherwise (some items without a label) the labels there are kept in the text.
 */
export function serializePage(items: DocItem[]): string {
  const lines: string[] = [];
  /** Open lists, innermost last. */
  const open: OpenList[] = [];
  const closeTo = (depth: number) => {
    while (open.length > depth) {
      const l = open.pop()!;
      const labelled = l.ordered && l.labelled && !l.sequential && l.members.length > 0;
      // A list with no items of its own around one written for its labels (a level the input
      // skipped): as an <ordered_list> the reader would number the nested items through it.
      if (labelled || (l.ordered && l.members.length === 0 && l.holdsLabelled)) {
        lines[l.openLine] = lines[l.openLine]!.replace(/^<ordered_list>/, '<unordered_list>');
        for (const m of l.members)
          lines[m.line] = m.prefix.replace(/^<ordered_list>$/, '<unordered_list>') + serializeItem(m.item, false);
        lines.push('</unordered_list>');
        if (open.length > 0) open[open.length - 1]!.holdsLabelled = true;
      } else lines.push(l.ordered ? '</ordered_list>' : '</unordered_list>');
    }
  };
  for (const item of items) {
    if (item.cls !== 'list_item') {
      closeTo(0);
      lines.push(serializeItem(item));
      continue;
    }
    const level = Math.max(0, Math.min(8, Math.round(item.level ?? 0)));
    const ordered = item.ordered === true;
    closeTo(level + 1);
    // Same depth but another kind of list: close it and open the right one.
    if (open.length === level + 1 && open[level]!.ordered !== ordered) closeTo(level);
    while (open.length < level + 1) {
      // Intermediate levels skipped by the input take the item's kind.
      lines.push(ordered ? '<ordered_list>' : '<unordered_list>');
      open.push({
        ordered,
        place: 0,
        sequential: true,
        labelled: true,
        openLine: lines.length - 1,
        members: [],
        holdsLabelled: false,
      });
    }
    const list = open[level]!;
    const n = ++list.place;
    if (item.marker !== undefined && item.marker !== `${n}.`) list.sequential = false;
    if (!(item.marker && isListLabel(item.marker))) list.labelled = false;
    const implied = ordered && list.sequential && item.marker === `${n}.`;
    // docling puts the list opening tag on the same line as the first item.
    const item_ = serializeItem(item, implied);
    const last = lines.length - 1;
    if (last >= 0 && /^<(un)?ordered_list>$/.test(lines[last]!)) {
      list.members.push({ line: last, prefix: lines[last]!, item });
      lines[last] += item_;
    } else {
      list.members.push({ line: lines.length, prefix: '', item });
      lines.push(item_);
    }
  }
  closeTo(0);
  return lines.join('\n');
}

/** Whole document: `<doctag>` … `<page_break>` between pages … `</doctag>`. */
export function serializeDocument(pages: DocItem[][]): string {
  return '<doctag>' + pages.map((p) => serializePage(p)).join('\n<page_break>\n') + '\n</doctag>';
}
