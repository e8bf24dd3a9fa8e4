/**
 * Tables of contents (issue 31 class 7): a run of entry lines, each a title and a page number
 * set flush right (most with leader dots between), is one document index, as Docling labels it
 * (`document_index`, a table of title and page). Before, the leader dots came out as display
 * formulas ("2.1.\mathrm{NAME}....."), the page numbers as paragraphs of their own, and some
 * entries as a table while the next ones were headings.
 *
 * Found on the page's spans before the table and formula stages read them: rows of spans by
 * their vertical middles; an entry ends in a page number (Arabic or Roman) standing apart from
 * its title or after leader dots; a block is at least MIN_ENTRIES entries whose numbers end at
 * one x (flush right) and mostly rise down the page. Lines without a number inside the block
 * (a part's title, a title wrapped onto two lines) are rows with an empty page cell, or join the
 * entry under them when they are its first line.
 */
import type { BBox } from '../../../common/protocol';
import { boundsOf } from '../../../common/bbox';
import type { TextSpan } from '../../model/content';
import type { OtslCell } from '../../model/items';
import { buildLines, type Line } from '../lines/index';

export interface ContentsBlock {
  bbox: BBox;
  /** Rows of [title, page] cells. */
  rows: OtslCell[][];
  /** Indices into the page's spans that the block consumed. */
  spanIndices: number[];
}

/** A table of contents has at least this many entries with page numbers. */
const MIN_ENTRIES = 4;
/** Page numbers of one block end within this many points of their common right edge. */
const FLUSH_TOLERANCE = 3;
/** At least this share of the block's entries end at that edge… */
const FLUSH_SHARE = 0.8;
/** …and at least this share of consecutive page numbers do not fall. */
const RISING_SHARE = 0.75;
/** A page number stands at least this many font sizes right of its title (without leader dots). */
const NUMBER_GAP = 1.5;
/** A line number in the margin stands this many font sizes left of the row's text at least. */
const MARGIN_NUMBER_GAP = 1.5;
/** Rows of one block are at most this many line heights apart. */
const MAX_ROW_GAP = 2.2;

interface Row {
  lines: Line[];
  spans: { s: TextSpan; i: number }[];
  bbox: BBox;
  text: string;
  size: number;
}

interface Entry {
  row: Row;
  title: string;
  page?: { text: string; value: number; x1: number };
  /** Leader dots between the title and the number. */
  dotted?: boolean;
}

/** A title led by a section number, a part's Roman number or letter, or "Chapter"/"Appendix". */
const SECTION_NUMBER_RE =
  /^((\d{1,2}(\.\d{1,2})*|[IVX]{1,5}|[A-Z])[.)]?\s|(chapter|part|appendix|kapitel|chapitre)\b)/i;
/** At least this share of a block's entries have leader dots or a section number. */
const TOC_LIKE_SHARE = 0.5;

const LEADER_RE = /\s*(?:[.·…_]\s*){3,}\s*$/u;
const ROMAN_RE = /^[ivxlc]{1,7}$/i;
/** A run that can end an entry: its last characters are a page number or the end of one. */
const PAGE_NUMBER_END_RE = /(?:\d|(?:^|[^\p{L}])[ivxlc]{1,7})$/iu;

function romanValue(s: string): number {
  const v: Record<string, number> = { i: 1, v: 5, x: 10, l: 50, c: 100 };
  let n = 0;
  const t = s.toLowerCase();
  for (let k = 0; k < t.length; k++) {
    const a = v[t[k]!]!;
    const b = v[t[k + 1] ?? ''] ?? 0;
    n += a < b ? -a : a;
  }
  return n;
}

/**
 * The page's text lines (../lines: accents composed, runs split at wide gaps) grouped into rows
 * by their vertical middles, each row's lines left to right. A bare number standing apart at a
 * row's left (a draft's line number in the margin) is not the row's.
 */
function rowsOf(spans: TextSpan[]): Row[] {
  const index = new Map<TextSpan, number>();
  spans.forEach((s, i) => index.set(s, i));
  const lines = buildLines(spans.filter((s) => s.text.trim() && s.bbox.y1 > s.bbox.y0)).sort(
    (a, b) => a.bbox.y0 + a.bbox.y1 - (b.bbox.y0 + b.bbox.y1),
  );
  const groups: Line[][] = [];
  for (const l of lines) {
    const cy = (l.bbox.y0 + l.bbox.y1) / 2;
    const h = l.bbox.y1 - l.bbox.y0;
    const g = groups.find((r) => {
      const b = r[0]!.bbox;
      return Math.abs((b.y0 + b.y1) / 2 - cy) <= Math.min(h, b.y1 - b.y0) / 2;
    });
    if (g) g.push(l);
    else groups.push([l]);
  }
  return groups.map((g) => {
    g.sort((a, b) => a.bbox.x0 - b.bbox.x0);
    // A draft's line number in the margin: a bare number far left of the row's text, a line of
    // its own or the first run of the first line.
    let margin: TextSpan | undefined;
    const first = g[0]!;
    const second = g[1];
    const lead = first.spans[0];
    if (
      second &&
      /^\d{1,4}$/.test(first.text.trim()) &&
      second.bbox.x0 - first.bbox.x1 >= MARGIN_NUMBER_GAP * first.fontSize
    )
      g.shift();
    else if (lead && first.spans.length > 1 && /^\d{1,4}$/.test(lead.text.trim())) {
      const next = first.spans.find((x) => x !== lead && x.text.trim());
      if (next && next.bbox.x0 - lead.bbox.x1 >= MARGIN_NUMBER_GAP * first.fontSize) margin = lead;
    }
    const parts = g.flatMap((l) => l.spans.filter((x) => x !== margin).map((s) => ({ s, i: index.get(s) ?? -1 })));
    return {
      lines: g,
      spans: parts.filter((x) => x.i >= 0),
      bbox: boundsOf(g.map((l) => l.bbox)),
      text: g
        .map((l, k) => (k === 0 && margin ? l.text.trim().replace(/^\d{1,4}\s*/, '') : l.text.trim()))
        .join(' ')
        .replace(/\s+/g, ' ')
        .trim(),
      size: Math.max(...g.map((l) => l.fontSize)),
    };
  });
}

/** The row as a contents entry: its title and, when it ends in one, its page number. */
function entryOf(row: Row): Entry {
  const lastLine = row.lines[row.lines.length - 1]!;
  const lastText = lastLine.text.trim();
  // The number ends the row's last line ("… 12" set as one run, or "12" standing alone).
  const m = /(?:^|\s)(\d{1,4}|[ivxlc]{1,7})$/i.exec(lastText);
  if (!m) return { row, title: row.text };
  const num = m[1]!;
  const before = row.text.slice(0, row.text.length - num.length);
  const dotted = LEADER_RE.test(before);
  const title = before.replace(LEADER_RE, '').trim();
  // Without leader dots the number stands apart from its title (a gap of a few characters).
  const alone = lastText === num && row.lines.length > 1;
  const apart = alone && lastLine.bbox.x0 - row.lines[row.lines.length - 2]!.bbox.x1 >= NUMBER_GAP * row.size;
  if (!title || !(dotted || apart) || !/\p{L}/u.test(title)) return { row, title: row.text };
  const value = ROMAN_RE.test(num) ? romanValue(num) : Number(num);
  return { row, title, dotted, page: { text: num, value, x1: lastLine.bbox.x1 } };
}

/** The tables of contents on a page, from its spans (points, top-left origin). */
export function findContents(spans: TextSpan[]): ContentsBlock[] {
  // Every entry's row ends in a run that ends with its page number: a page with fewer such runs
  // than an index needs (most pages of prose) has none, and its lines are not built twice.
  if (spans.filter((s) => PAGE_NUMBER_END_RE.test(s.text.trim())).length < MIN_ENTRIES) return [];
  const rows = rowsOf(spans);
  const entries = rows.map(entryOf);
  const blocks: ContentsBlock[] = [];
  let k = 0;
  while (k < entries.length) {
    if (!entries[k]!.page) {
      k++;
      continue;
    }
    // Grow a run of rows, each close under the one before; number-less rows may sit inside.
    let end = k + 1;
    while (end < entries.length) {
      const prev = entries[end - 1]!.row.bbox;
      const cur = entries[end]!.row.bbox;
      const h = Math.max(prev.y1 - prev.y0, cur.y1 - cur.y0);
      if (cur.y0 - prev.y1 > MAX_ROW_GAP * h) break;
      end++;
    }
    // Trailing number-less rows are not the block's.
    while (end > k && !entries[end - 1]!.page) end--;
    const run = entries.slice(k, end);
    const block = credibleBlock(run);
    if (block) blocks.push(block);
    k = end;
  }
  return blocks;
}

function credibleBlock(run: Entry[]): ContentsBlock | undefined {
  const numbered = run.filter((e) => e.page);
  if (numbered.length < MIN_ENTRIES) return undefined;
  // What makes it a table of contents and not a two-column table of names and counts: leader
  // dots, or titles led by section numbers ("2.1", "IV.", "A.", "Chapter 3").
  const led = numbered.filter((e) => e.dotted || SECTION_NUMBER_RE.test(e.title)).length;
  if (led < TOC_LIKE_SHARE * numbered.length) return undefined;
  // Flush right: the most common right edge of the numbers.
  const edges = numbered.map((e) => e.page!.x1);
  const edge = edges
    .map((x) => ({ x, n: edges.filter((y) => Math.abs(y - x) <= FLUSH_TOLERANCE).length }))
    .reduce((a, b) => (b.n > a.n ? b : a));
  if (edge.n < FLUSH_SHARE * numbered.length) return undefined;
  let rising = 0;
  for (let i = 1; i < numbered.length; i++) if (numbered[i]!.page!.value >= numbered[i - 1]!.page!.value) rising++;
  if (rising < RISING_SHARE * (numbered.length - 1)) return undefined;
  // Rows whose text runs past the numbers' edge are not entries of this block.
  if (run.some((e) => e.row.bbox.x1 > edge.x + FLUSH_TOLERANCE)) return undefined;
  const rows: OtslCell[][] = [];
  let pending = '';
  run.forEach((e, i) => {
    if (!e.page) {
      // A title's first line wrapped onto the next row (indented like it or more): joins it.
      const next = run[i + 1];
      if (next?.page && next.row.bbox.x0 >= e.row.bbox.x0 - FLUSH_TOLERANCE && !/[.:]$/.test(e.title)) {
        pending = pending ? `${pending} ${e.title}` : e.title;
        return;
      }
      rows.push([
        { tag: 'fcel', text: pending ? `${pending} ${e.title}` : e.title },
        { tag: 'ecel', text: '' },
      ]);
      pending = '';
      return;
    }
    rows.push([
      { tag: 'fcel', text: pending ? `${pending} ${e.title}` : e.title },
      { tag: 'fcel', text: e.page.text },
    ]);
    pending = '';
  });
  return {
    bbox: boundsOf(run.map((e) => e.row.bbox)),
    rows,
    spanIndices: run.flatMap((e) => e.row.spans.map((x) => x.i)),
  };
}
