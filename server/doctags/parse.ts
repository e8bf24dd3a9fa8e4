/**
 * DocTags → document model, best effort: it never throws. It reads docling's own output, a
 * VLM's output (which may stop mid-token, forget closing tags or mix tags up) and anything else.
 *
 * Rules for damaged input:
 * - An element left open is closed by the next element that is clearly markup (an element tag
 *   followed by a location token or OTSL cell, a list opening, `<page_break>`) or by the end of
 *   the input; it keeps what it had collected (docling's loader would keep it empty, but for a
 *   truncated VLM page the partial text is worth more than nothing).
 * - Inside text, a vocabulary tag that does not look like markup (`<table> , </table>` in a
 *   paper about HTML) stays text; names outside the vocabulary are always text.
 * - Stray closing tags are ignored; stray text between elements becomes a text item.
 */
import type { RegionClass } from '../../common/protocol';
import {
  isChartKind,
  partsToText,
  type ChartKind,
  type DocItem,
  type DocPage,
  type InlinePart,
  type OtslCell,
} from '../model/items';
import { tokenize, type Token } from './tokenize';
import { splitListLabel } from './listLabel';
import { classOfTag, isFigureTag, isOtslTag, LIST_TAGS } from './vocab';

interface Caption {
  locs: number[];
  text: string;
}

interface OpenElement {
  tag: string;
  cls: RegionClass;
  level?: number;
  ordered?: boolean;
  figure: boolean;
  locs: number[];
  text: string;
  language?: string;
  chartKind?: ChartKind;
  rows: OtslCell[][];
  row: OtslCell[] | undefined;
  caption?: Caption;
  /** True while tokens go to the caption. */
  inCaption: boolean;
  /** Inside an `<inline>` group: text and `<formula>` children become parts. */
  inInline?: boolean;
  mathOpen?: boolean;
  parts?: InlinePart[];
}

/** Tags that can hold a caption inside them (docling's floating items). */
const CAPTION_HOLDERS = new Set<RegionClass>(['table', 'picture', 'chart', 'code', 'formula']);

function nextSignificant(tokens: Token[], i: number): Token | undefined {
  for (let j = i + 1; j < tokens.length; j++) {
    const t = tokens[j]!;
    if (t.kind === 'text' && t.value.trim() === '') continue;
    return t;
  }
  return undefined;
}

/** Whether an opening tag met inside an element starts a new element (rather than being text). */
function looksStructural(name: string, next: Token | undefined): boolean {
  if (name === 'page_break' || name === 'doctag') return true;
  if (LIST_TAGS.has(name)) return next?.kind === 'open' && (next.name === 'list_item' || LIST_TAGS.has(next.name));
  if (isOtslTag(name) || !classOfTag(name)) return false;
  if (!next) return false;
  if (next.kind === 'loc') return true;
  if ((name === 'otsl' || name === 'table') && next.kind === 'open' && isOtslTag(next.name)) return true;
  return next.kind === 'close' && next.name === name;
}

function gridOf(locs: number[]): DocItem['grid'] {
  if (locs.length < 4) return undefined;
  const c = (v: number) => Math.min(499, Math.max(0, v));
  return [c(locs[0]!), c(locs[1]!), c(locs[2]!), c(locs[3]!)];
}

/** Text that ends with a closing tag of another element (a VLM closed the wrong tag): drop the tag. */
function stripDanglingClose(text: string): string {
  return text.replace(/<\/[a-z_0-9]+>\s*$/, '');
}

export function parseDocTags(text: string): DocPage[] {
  try {
    return parseTokens(tokenize(String(text ?? '')));
  } catch {
    // The parser is written not to throw; this is the last guard of the "never throws" promise.
    return [];
  }
}

function parseTokens(tokens: Token[]): DocPage[] {
  const pages: DocPage[] = [{ page: 1, items: [] }];
  let items = pages[0]!.items;
  /** Open lists, innermost last: true = ordered. */
  const lists: boolean[] = [];
  /** Per open list: where its items start in `items`. */
  const listStarts: number[] = [];
  const openList = (ordered: boolean) => {
    lists.push(ordered);
    listStarts.push(items.length);
  };
  /** Closes the open lists down to `depth` (see `labelledList`). */
  const closeLists = (depth: number) => {
    while (lists.length > depth) {
      const ordered = lists.pop()!;
      const from = listStarts.pop()!;
      if (!ordered) labelledList(items, from, lists.length);
    }
  };
  let el: OpenElement | undefined;
  let sawAnything = false;

  const start = (name: string) => {
    const c = classOfTag(name)!;
    el = {
      tag: name,
      cls: c.cls,
      figure: isFigureTag(name),
      locs: [],
      text: '',
      rows: [],
      row: undefined,
      inCaption: false,
    };
    if (c.level !== undefined) el.level = c.level;
    if (c.cls === 'list_item') {
      el.level = Math.max(0, lists.length - 1);
      el.ordered = lists.length > 0 ? lists[lists.length - 1]! : false;
    }
  };

  const finish = (implicit: boolean) => {
    const e = el;
    el = undefined;
    if (!e) return;
    if (e.row && e.row.length > 0) e.rows.push(e.row);
    let body = e.cls === 'code' ? e.text : e.text.trim();
    if (implicit) {
      body = stripDanglingClose(body);
      if (e.cls !== 'code') body = body.trim();
    }
    const textless = e.figure && !(e.cls === 'document_index' && e.rows.length === 0);
    const item: DocItem = { cls: e.cls, text: textless ? '' : body };
    if (e.parts && e.parts.some((p) => p.math)) {
      const parts = e.parts.filter((p) => p.text.trim() !== '' || !p.math);
      if (parts.length) {
        const first = parts[0]!;
        const last = parts[parts.length - 1]!;
        if (!first.math) first.text = first.text.replace(/^\s+/, '');
        if (!last.math) last.text = last.text.replace(/\s+$/, '');
        item.parts = parts.filter((p) => p.text !== '');
        item.text = partsToText(item.parts);
      }
    } else if (e.parts)
      item.text = e.parts
        .map((p) => p.text)
        .join('')
        .trim();
    const grid = gridOf(e.locs);
    if (grid) item.grid = grid;
    if (e.level !== undefined) item.level = e.level;
    if (e.ordered !== undefined) item.ordered = e.ordered;
    if (e.ordered === true) takeLabel(item);
    if (e.language !== undefined) item.language = e.language;
    if (e.chartKind !== undefined) item.chartKind = e.chartKind;
    if (e.figure && e.rows.length > 0) item.table = e.rows;
    if (e.cls === 'table' && !item.table) item.table = [];
    if (e.caption) {
      const cap: DocItem = { cls: 'caption', text: stripDanglingClose(e.caption.text).trim() };
      const cg = gridOf(e.caption.locs);
      if (cg) cap.grid = cg;
      item.caption = cap;
    }
    items.push(item);
  };

  const pushText = (s: string) => {
    const e = el!;
    if (e.inCaption) e.caption!.text += s;
    else if (e.figure) {
      // Text in a table goes to the current cell; elsewhere in a figure (classification
      // labels, SMILES) it has no place in the document model.
      const cell = e.row?.[e.row.length - 1];
      if (cell) cell.text += s;
      else if (e.cls === 'document_index') e.text += s; // an index written as text, not rows
    } else e.text += s;
  };

  const topLevel = (t: Token, i: number) => {
    switch (t.kind) {
      case 'text':
        if (t.value.trim()) items.push({ cls: 'text', text: stripDanglingClose(t.value.trim()) });
        return;
      case 'loc':
      case 'lang':
        return; // orphan tokens: nothing to attach them to
      case 'close':
        if (LIST_TAGS.has(t.name)) {
          const want = t.name === 'ordered_list';
          const at = lists.lastIndexOf(want);
          if (at >= 0) closeLists(at);
          else if (lists.length > 0) closeLists(lists.length - 1);
        }
        return;
      case 'open':
        if (t.name === 'doctag' || t.name === 'nl') return;
        if (t.name === 'page_break') {
          closeLists(0);
          pages.push({ page: pages.length + 1, items: [] });
          items = pages[pages.length - 1]!.items;
          return;
        }
        if (LIST_TAGS.has(t.name)) {
          openList(t.name === 'ordered_list');
          return;
        }
        if (isOtslTag(t.name)) {
          // Cells with no `<otsl>` around them: a table whose opening tag was lost.
          start('otsl');
          inElement(t, i);
          return;
        }
        if (t.name === 'inline') {
          // docling's inline group at the top level: a paragraph with inline formulas.
          start('text');
          el!.tag = 'inline';
          el!.inInline = true;
          el!.parts = [];
          return;
        }
        if (classOfTag(t.name)) start(t.name);
        return;
    }
  };

  /** A token inside an inline group; false when it is not the group's own markup or text. */
  const inlineToken = (e: OpenElement, t: Token): boolean => {
    const parts = e.parts!;
    if (t.kind === 'text') {
      const last = parts[parts.length - 1];
      if (e.mathOpen && last?.math) last.text += t.value;
      else if (last && !last.math) last.text += t.value;
      else parts.push({ math: false, text: t.value });
      return true;
    }
    if (t.kind === 'open' && t.name === 'text') return true;
    if (t.kind === 'open' && t.name === 'formula') {
      e.mathOpen = true;
      parts.push({ math: true, text: '' });
      return true;
    }
    if (t.kind === 'close' && (t.name === 'text' || t.name === 'formula')) {
      if (t.name === 'formula') {
        e.mathOpen = false;
        // Inside an element, Folio writes a formula as `$…$` (serialize.ts inlineBody): take them off.
        const last = parts[parts.length - 1];
        const m = e.tag !== 'inline' && last?.math ? /^\s*\$([^$]+)\$\s*$/.exec(last.text) : null;
        if (m) last!.text = m[1]!;
      }
      return true;
    }
    if (t.kind === 'close' && t.name === 'inline') {
      e.inInline = false;
      e.mathOpen = false;
      if (e.tag === 'inline') finish(false);
      return true;
    }
    return false;
  };

  const inElement = (t: Token, i: number): void => {
    const e = el!;
    if (e.inInline && !e.inCaption && inlineToken(e, t)) return;
    switch (t.kind) {
      case 'text':
        pushText(t.value);
        return;
      case 'loc': {
        const target = e.inCaption ? e.caption!.locs : e.locs;
        // Locations come first; one after cells or text is noise (keep the first four).
        if (target.length < 4 && (e.inCaption || e.rows.length === 0) && !e.row) target.push(t.value);
        return;
      }
      case 'lang':
        if (e.cls === 'code' && !e.inCaption && e.language === undefined && e.text.trim() === '') {
          if (t.value !== 'unknown') e.language = t.value;
          else e.language = undefined;
        } else pushText(`<_${t.value}_>`);
        return;
      case 'close':
        if (e.inCaption && t.name === 'caption') {
          e.inCaption = false;
          return;
        }
        if (t.name === e.tag) {
          finish(false);
          return;
        }
        if (LIST_TAGS.has(t.name) || t.name === 'doctag') {
          finish(true);
          topLevel(t, i);
          return;
        }
        // A figure closed with the other spelling (`</table>` for `<otsl>`).
        if (e.figure && !e.inCaption && isFigureTag(t.name)) {
          finish(false);
          return;
        }
        if (e.figure && !e.inCaption) return; // stray close inside a table: ignore
        pushText(`</${t.name}>`);
        return;
      case 'open': {
        const next = nextSignificant(tokens, i);
        if (t.name === 'inline' && !e.figure && !e.inCaption && !e.inInline && e.text.trim() === '') {
          e.inInline = true;
          e.parts ??= [];
          return;
        }
        if (t.name === 'caption' && !e.inCaption && CAPTION_HOLDERS.has(e.cls) && !e.caption) {
          e.caption = { locs: [], text: '' };
          e.inCaption = true;
          return;
        }
        if (e.cls === 'chart' && !e.inCaption && isChartKind(t.name)) {
          e.chartKind ??= t.name; // docling's classification token: the chart's kind
          return;
        }
        if (e.figure && !e.inCaption && (isOtslTag(t.name) || t.name === 'nl' || t.name === 'smiles')) {
          // Table cells; in a picture or chart, docling's tabular chart data (kept as its table).
          if (t.name === 'nl') {
            e.rows.push(e.row ?? []);
            e.row = undefined;
          } else if (t.name !== 'smiles') {
            e.row ??= [];
            e.row.push({ tag: t.name as OtslCell['tag'], text: '' });
          }
          return;
        }
        if (looksStructural(t.name, next)) {
          finish(true);
          topLevel(t, i);
          return;
        }
        pushText(`<${t.name}>`);
        return;
      }
    }
  };

  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.kind !== 'text' || t.value.trim()) sawAnything = true;
    if (el) inElement(t, i);
    else topLevel(t, i);
  }
  finish(true);
  closeLists(0);
  if (!sawAnything) return [];
  for (const p of pages) for (const it of p.items) if (it.table) it.table = normalizeCells(it.table);
  return pages;
}

/**
 * An unordered list whose every item (at its own level, `level`) starts with a printed label
 * ("3) …", "(a) …"): the ordered list Folio writes so (serialize.ts serializePage), each label
 * its item's marker again.
 */
function labelledList(items: DocItem[], from: number, level: number): void {
  const own = items.slice(from).filter((it) => it.cls === 'list_item' && it.level === level);
  if (own.length === 0) return;
  for (const it of own) {
    const first = it.parts ? it.parts[0] : undefined;
    const sp = splitListLabel(first ? (first.math ? '' : first.text) : it.text);
    if (!sp || (!sp.rest && (!it.parts || it.parts.length < 2))) return;
  }
  for (const it of own) {
    it.ordered = true;
    takeLabel(it);
  }
}

/**
 * An ordered item's text that starts with its label ("212. …", "(a) …"): the label moves to
 * `marker`, so Markdown writes it once, as the document does (listLabel.ts).
 */
function takeLabel(item: DocItem): void {
  const first = item.parts?.[0];
  if (item.parts && first) {
    if (first.math) return;
    const sp = splitListLabel(first.text);
    if (!sp || (!sp.rest && item.parts.length < 2)) return;
    item.marker = sp.label;
    if (sp.rest) first.text = sp.rest;
    else item.parts.shift();
    item.text = partsToText(item.parts);
    return;
  }
  const sp = splitListLabel(item.text);
  // A label alone is the item's only text: keep it as text.
  if (!sp || !sp.rest) return;
  item.marker = sp.label;
  item.text = sp.rest;
}

/** Cell texts trimmed; merge markers (lcel, ucel, xcel) carry none. */
function normalizeCells(rows: OtslCell[][]): OtslCell[][] {
  return rows.map((r) =>
    r.map((c): OtslCell => {
      const text = c.text.trim();
      // An "empty" cell with text in it (a VLM slip) is a full cell; merge markers never carry text.
      if (c.tag === 'ecel') return text ? { tag: 'fcel', text } : { tag: 'ecel', text: '' };
      if (c.tag === 'lcel' || c.tag === 'ucel' || c.tag === 'xcel') return { tag: c.tag, text: '' };
      return { tag: c.tag, text };
    }),
  );
}
