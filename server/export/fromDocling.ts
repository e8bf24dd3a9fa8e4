/**
 * A DoclingDocument → Folio's document model → Markdown with Folio's one converter. Used to
 * check that the DoclingDocument export keeps everything the Markdown says (the round trip
 * DocTags → DoclingDocument → Markdown must give Folio's Markdown), and usable on any
 * DoclingDocument whose items carry page provenance.
 */
import type { DoclingDocument, NodeItem, RefItem, TableItem, PictureItem } from '@docling/docling-core';
import type { RegionClass } from '../../common/protocol';
import { isChartKind, partsToText, type DocItem, type InlinePart } from '../model/items';
import { pageToMarkdown } from '../doctags/markdown';
import { tableDataToOtsl } from './doclingTable';
import { isListLabel } from '../doctags/listLabel';

type AnyNode = NodeItem & {
  label?: string;
  text?: string;
  prov?: { page_no: number }[];
  captions?: RefItem[];
} & Record<string, unknown>;

function resolve(doc: DoclingDocument, r: RefItem): AnyNode | undefined {
  const m = /^#\/(\w+)\/(\d+)$/.exec(r.$ref);
  if (!m) return r.$ref === '#/body' ? (doc.body as AnyNode) : undefined;
  const list = (doc as unknown as Record<string, AnyNode[] | undefined>)[m[1]!];
  return list?.[Number(m[2])];
}

/** The caption of a table, picture or code node (its first `caption` child) and every caption child to skip. */
function captionOf(doc: DoclingDocument, node: AnyNode): { caption?: DocItem; captionRefs: Set<string> } {
  const refs = new Set<string>();
  for (const c of node.children ?? []) {
    const child = resolve(doc, c);
    if (child?.label === 'caption') refs.add(c.$ref);
  }
  const first = [...refs][0];
  const capNode = first ? resolve(doc, { $ref: first }) : undefined;
  return capNode
    ? { caption: { cls: 'caption', text: String(capNode.text ?? '') }, captionRefs: refs }
    : { captionRefs: refs };
}

/** A list item at its depth; the printed label docling-core keeps in `marker` ("(4)", "3)", "212."). */
function listItemOf(node: AnyNode, listDepth: number, orderedGroup: boolean): DocItem {
  const item: DocItem = {
    cls: 'list_item',
    text: String(node.text ?? ''),
    level: Math.max(0, listDepth - 1),
    ordered: node.enumerated === true || orderedGroup,
  };
  if (item.ordered && typeof node.marker === 'string' && isListLabel(node.marker)) item.marker = node.marker;
  return item;
}

/** Text with inline math (written by Folio's export, or docling's): one paragraph whose formula children are its `$…$` parts. */
function inlineOf(doc: DoclingDocument, node: AnyNode): { first: AnyNode; item: DocItem } | undefined {
  const kids = (node.children ?? []).map((c) => resolve(doc, c)).filter((k): k is AnyNode => k !== undefined);
  const parts: InlinePart[] = kids.map((k) => ({ math: k.label === 'formula', text: String(k.text ?? '') }));
  return kids.length > 0 ? { first: kids[0]!, item: { cls: 'text', text: partsToText(parts), parts } } : undefined;
}

/** Any other document item → Folio's item of the same kind (without its caption). */
function itemOf(node: AnyNode, label: string): DocItem {
  switch (label) {
    case 'section_header':
      return { cls: 'section_header', text: String(node.text ?? ''), level: Number(node.level ?? 1) };
    case 'code': {
      const item: DocItem = { cls: 'code', text: String(node.text ?? '') };
      const lang = node.code_language;
      if (typeof lang === 'string' && lang !== 'unknown') item.language = lang;
      return item;
    }
    case 'table':
      return { cls: 'table', text: '', table: tableDataToOtsl((node as unknown as TableItem).data) };
    case 'document_index': {
      const cells = (node as unknown as TableItem).data.table_cells ?? [];
      return { cls: 'document_index', text: cells.map((c) => c.text).join(' ') };
    }
    case 'picture':
    case 'chart': {
      const pic = node as unknown as PictureItem;
      const item: DocItem = { cls: label, text: '' };
      if (pic.image?.uri) item.imagePath = pic.image.uri;
      const chart = (pic.annotations ?? []).find((a) => a.kind === 'tabular_chart_data');
      if (chart && 'chart_data' in chart) item.table = tableDataToOtsl(chart.chart_data);
      const kind = (pic.annotations ?? []).find((a) => a.kind === 'classification');
      const name = kind && 'predicted_classes' in kind ? kind.predicted_classes?.[0]?.class_name : undefined;
      if (label === 'chart' && name && isChartKind(name)) item.chartKind = name;
      return item;
    }
    case 'form':
    case 'key_value_region': {
      const cells = ((node.graph as { cells?: { text: string }[] } | undefined)?.cells ?? []).map((c) => c.text);
      return { cls: label, text: cells.join(' ') };
    }
    default:
      return { cls: label as RegionClass, text: String(node.text ?? '') };
  }
}

/** Items per page number, in body order. */
export function doclingToPages(doc: DoclingDocument): Map<number, DocItem[]> {
  const pages = new Map<number, DocItem[]>();
  for (const key of Object.keys(doc.pages ?? {})) pages.set(Number(key), []);
  let lastPage = 1;
  const push = (node: AnyNode, item: DocItem) => {
    const page = node.prov?.[0]?.page_no ?? lastPage;
    lastPage = page;
    if (!pages.has(page)) pages.set(page, []);
    pages.get(page)!.push(item);
  };

  const walk = (refs: RefItem[] | undefined, listDepth: number, orderedGroup = false) => {
    for (const r of refs ?? []) {
      const node = resolve(doc, r);
      if (!node) continue;
      const label = node.label ?? '';
      if (label === 'list' || label === 'ordered_list') {
        walk(node.children, listDepth + 1, label === 'ordered_list'); // docling-core < 1.5 wrote numbered lists as `ordered_list`
      } else if (label === 'inline') {
        const inline = inlineOf(doc, node);
        if (inline) push(inline.first, inline.item);
      } else if (label === 'unspecified' || label === 'section' || label === 'chapter') {
        walk(node.children, listDepth, orderedGroup);
      } else {
        // A list item keeps no caption (docling-core gives it none); its nested list is among its children.
        const { caption, captionRefs } = captionOf(doc, node);
        const item = label === 'list_item' ? listItemOf(node, listDepth, orderedGroup) : itemOf(node, label);
        if (caption && label !== 'list_item') item.caption = caption;
        push(node, item);
        const rest = (node.children ?? []).filter((c) => !captionRefs.has(c.$ref));
        walk(rest, listDepth);
      }
    }
  };
  walk(doc.body?.children, 0);
  return pages;
}

/** Markdown of a DoclingDocument, written like Folio's `.md`: pages joined by a blank line. */
export function doclingToMarkdown(doc: DoclingDocument, opts: { keepFurniture?: boolean } = {}): string {
  const pages = [...doclingToPages(doc).entries()].sort((a, b) => a[0] - b[0]);
  const parts = pages.map(([, items]) => pageToMarkdown(items, opts).markdown).filter((m) => m.length > 0);
  return parts.length > 0 ? parts.join('\n\n') + '\n' : '';
}
