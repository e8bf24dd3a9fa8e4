/**
 * The outline of a document born structured (DOCX, XLSX, HTML, PPTX…): its headings and tables
 * (and, for slides, one entry per slide), in reading order, each linked to the region whose
 * Markdown it is. A pure model over the pages the view holds (no DOM), so it is unit-tested in
 * Node (test/preview/outline.test.ts); outlineView.ts draws it.
 *
 * Entry text comes from the document: it is returned as plain text (Markdown marks and the
 * converter's HTML escapes undone) and the view sets it with textContent, never as HTML.
 */
import type { PageView, SourceKind } from '../../common/viewMessages';

export interface OutlineEntry {
  /** The region the entry links to (its Markdown is revealed in the `.md` on a click). */
  regionId: string;
  kind: 'heading' | 'table' | 'slide';
  /** Nesting for the view's indent: 1 = top (a title, a slide, a level-1 heading). */
  level: number;
  text: string;
  page: number;
  /** Reading-order place of the region on its page. */
  order: number;
  /** False when the region has no Markdown now (its text was deleted): nothing to reveal. */
  linked: boolean;
}

/** Longest entry text shown (the rest is cut with an ellipsis). */
export const OUTLINE_TEXT_MAX = 120;

const ENTITIES: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&amp;': '&', '&quot;': '"', '&#39;': "'" };

/** One line of Markdown as plain text: heading marks, emphasis, code ticks, links and escapes undone. */
export function plainText(markdown: string): string {
  // Escaped characters are set aside first, so `\*` is never taken for emphasis.
  const escaped: string[] = [];
  let t = markdown
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/\\([\\`*_{}[\]()#+\-.!|<>~])/g, (_, c: string) => `\uE000${escaped.push(c) - 1}\uE001`);
  t = t.replace(/^#{1,6}\s+/, '');
  t = t.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1'); // [text](url) → text, ![alt](src) → alt
  t = t.replace(/(\*\*|__|\*|_|`)(?=\S)(.+?)(?<=\S)\1/g, '$2');
  t = t.replace(/\uE000(\d+)\uE001/g, (_, i: string) => escaped[Number(i)] ?? '');
  t = t.replace(/&(lt|gt|amp|quot|#39);/g, (e) => ENTITIES[e] ?? e);
  return cut(t.trim());
}

function cut(t: string): string {
  return t.length > OUTLINE_TEXT_MAX ? `${t.slice(0, OUTLINE_TEXT_MAX - 1)}…` : t;
}

/** A table's label: its header row's cells ("Plant, Depth"), from the Markdown table's first line. */
export function tableLabel(markdown: string, n: number): string {
  const first = markdown.split('\n').find((l) => l.trim().startsWith('|'));
  const cells = first
    ? first
        .trim()
        .replace(/^\||\|$/g, '')
        .split(/(?<!\\)\|/)
        .map((c) => plainText(c))
        .filter(Boolean)
    : [];
  return cut(cells.length ? `Table ${n}: ${cells.join(', ')}` : `Table ${n}`);
}

/** The first line of a block's text (a slide's entry: its title, or what it says first). */
function firstLine(markdown: string): string {
  const line = markdown.split('\n').find((l) => l.trim() && !/^\s*\|?\s*-+\s*\|/.test(l)) ?? '';
  return plainText(line.replace(/^\s*([-*+]|\d+[.)])\s+/, '').replace(/^\||\|$/g, ''));
}

/** The outline of `pages` (any order; the result is in reading order). */
export function buildOutline(pages: Iterable<PageView>, kind: SourceKind): OutlineEntry[] {
  const entries: OutlineEntry[] = [];
  let tables = 0;
  for (const p of [...pages].sort((a, b) => a.page - b.page)) {
    const blocks = new Map(p.blocks.filter((b) => b.regionId).map((b) => [b.regionId!, b.markdown]));
    const regions = [...p.regions].sort((a, b) => a.order - b.order);
    const nested = kind === 'slides' ? 1 : 0;
    if (kind === 'slides') {
      // The slide itself: linked to its first region with Markdown (or its first region at all).
      const first = regions.find((r) => r.linked && blocks.get(r.id)?.trim()) ?? regions[0];
      if (first) {
        const title = firstLine(blocks.get(first.id) ?? '');
        entries.push({
          regionId: first.id,
          kind: 'slide',
          level: 1,
          text: cut(title ? `Slide ${p.page}: ${title}` : `Slide ${p.page}`),
          page: p.page,
          order: first.order,
          linked: first.linked,
        });
      }
    }
    for (const r of regions) {
      const md = blocks.get(r.id) ?? '';
      const base = { regionId: r.id, page: p.page, order: r.order, linked: r.linked && !!md.trim() };
      if (r.cls === 'title' || r.cls === 'section_header') {
        const text = plainText(md.split('\n').find((l) => l.trim()) ?? '');
        if (!text) continue; // a heading whose text was deleted has nothing to show
        const level = r.cls === 'title' ? 1 : Math.min(6, Math.max(1, r.level ?? 1));
        entries.push({ ...base, kind: 'heading', level: level + nested, text });
      } else if (r.cls === 'table') {
        tables++;
        entries.push({ ...base, kind: 'table', level: 1 + nested, text: tableLabel(md, tables) });
      }
    }
  }
  // Indents are relative: a document whose top heading is level 2 starts at the left edge.
  const headings = entries.filter((e) => e.kind === 'heading').map((e) => e.level);
  const shift = headings.length ? Math.min(...headings) - 1 - (kind === 'slides' ? 1 : 0) : 0;
  if (shift > 0) for (const e of entries) if (e.kind === 'heading') e.level -= shift;
  // A table sits one step under the heading before it.
  let under = kind === 'slides' ? 1 : 0;
  for (const e of entries) {
    if (e.kind === 'slide') under = 1;
    else if (e.kind === 'heading') under = e.level;
    else e.level = under + 1;
  }
  return entries;
}

/**
 * The entry the `.md` cursor is under: the last entry at or before region `regionId` in reading
 * order (a paragraph selects the heading of its section). -1 when the region is before every entry
 * or not in `pages`.
 */
export function entryIndexFor(
  entries: readonly OutlineEntry[],
  pages: ReadonlyMap<number, PageView>,
  regionId: string,
): number {
  const exact = entries.findIndex((e) => e.regionId === regionId && e.kind !== 'slide');
  if (exact >= 0) return exact;
  const page = /^p(\d+)-/.exec(regionId);
  const r = page ? pages.get(Number(page[1]))?.regions.find((x) => x.id === regionId) : undefined;
  if (!r) return -1;
  const at = Number(page![1]);
  let best = -1;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    if (e.page < at || (e.page === at && e.order <= r.order)) best = i;
    else break;
  }
  return best;
}
