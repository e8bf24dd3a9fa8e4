/**
 * Leader-dot tables (issue 40, class 4): a price list, a cost breakdown or a list of figures set
 * as "Item . . . . . . . . 0.47" rows, with no rules and no column gap a reader could see other
 * than the dots. The dots are the column gap: each row is a label cell and a value cell (or
 * several, when the value side holds runs set apart). Before, the rows were one paragraph with the
 * dots in it ("Energy . . . . 0.47 Treatment chemicals . . . . 0.21 …").
 *
 * A block is at least MIN_ROWS consecutive rows (each close under the one before) whose label and
 * value are joined by a run of leader dots, the values ending at one x (flush right, as leaders
 * make them). A row without dots inside the block is a label's first line when the dotted row
 * under it starts at its left edge, else a row of its own (a group label). A table of contents
 * is also leader rows; the contents stage (stages/contents.ts) finds it on its own and its
 * document index replaces the table read here. What stays text: dotted fill-in lines with no
 * value after the dots ("Name . . . . . . ."), a sentence with an ellipsis in it, fewer than
 * MIN_ROWS rows.
 */
import type { BBox } from '../../../common/protocol';
import type { TextSpan } from '../../model/content';
import type { OtslCell } from '../../model/items';

export interface LeaderTable {
  bbox: BBox;
  rows: OtslCell[][];
  spanIndices: number[];
}

/** A leader table has at least this many dotted rows. */
const MIN_ROWS = 3;
/** Values of one block end within this many points of their common right edge… */
const FLUSH_TOLERANCE = 3;
/** …for at least this share of its dotted rows. */
const FLUSH_SHARE = 0.8;
/** Rows of one block are at most this many line heights apart. */
const MAX_ROW_GAP = 2.2;
/** A value is a short run: at most this many characters. */
const MAX_VALUE_CHARS = 24;

/** Four or more dots (or middle dots, ellipses), spaced or not: a leader, never punctuation. */
const LEADER_RE = /(?:[.·…]\s*){4,}/u;
/** The row's text split at its leader: label, dots, value side. */
const SPLIT_RE = /^(.*?\p{L}.*?)\s*(?:[.·…]\s*){4,}\s*(\S.*)$/u;

interface Row {
  idx: number[];
  bbox: BBox;
  size: number;
}

interface Entry {
  row: Row;
  label: string;
  /** Cells right of the leader, left to right. */
  values: string[];
  /** Right edge of the last value. */
  x1: number;
}

/**
 * A row's spans as one text: a space where the text has one or the spans stand apart (a ligature
 * set as its own run, "Sta" + "ff" + " and", joins without one).
 */
function joined(spans: TextSpan[], idx: number[]): string {
  let out = '';
  idx.forEach((i, k) => {
    const s = spans[i]!;
    const prev = k > 0 ? spans[idx[k - 1]!]! : undefined;
    const apart = prev !== undefined && s.bbox.x0 - prev.bbox.x1 > 0.15 * Math.min(s.fontSize, prev.fontSize);
    out += (apart ? ' ' : '') + s.text;
  });
  return out.replace(/\s+/g, ' ').trim();
}

function cy(s: TextSpan): number {
  return (s.bbox.y0 + s.bbox.y1) / 2;
}

/** The free spans grouped into rows by their vertical middles, top to bottom, each left to right. */
function rowsOf(spans: TextSpan[], taken: Set<number>): Row[] {
  const idx = spans
    .map((_, i) => i)
    .filter((i) => !taken.has(i) && spans[i]!.text.trim() !== '' && (spans[i]!.dir ?? 'ltr') === 'ltr')
    .sort((a, b) => cy(spans[a]!) - cy(spans[b]!));
  const rows: Row[] = [];
  for (const i of idx) {
    const s = spans[i]!;
    const h = s.bbox.y1 - s.bbox.y0;
    const row = rows.find(
      (r) => Math.abs((r.bbox.y0 + r.bbox.y1) / 2 - cy(s)) <= Math.min(h, r.bbox.y1 - r.bbox.y0) / 2,
    );
    if (row) {
      row.idx.push(i);
      row.bbox = {
        x0: Math.min(row.bbox.x0, s.bbox.x0),
        y0: Math.min(row.bbox.y0, s.bbox.y0),
        x1: Math.max(row.bbox.x1, s.bbox.x1),
        y1: Math.max(row.bbox.y1, s.bbox.y1),
      };
      row.size = Math.max(row.size, s.fontSize);
    } else rows.push({ idx: [i], bbox: { ...s.bbox }, size: s.fontSize });
  }
  for (const r of rows) r.idx.sort((a, b) => spans[a]!.bbox.x0 - spans[b]!.bbox.x0);
  return rows.sort((a, b) => a.bbox.y0 - b.bbox.y0);
}

/**
 * The row as a leader entry: the text before the dots is the label; the runs after them, split
 * where they stand more than an em apart, are the values.
 */
function entryOf(spans: TextSpan[], row: Row): Entry | undefined {
  const text = joined(spans, row.idx);
  if (!LEADER_RE.test(text)) return undefined;
  const m = SPLIT_RE.exec(text);
  if (!m) return undefined;
  const label = m[1]!.trim();
  // The value side, by runs: the spans after the last one holding leader dots.
  let lastDots = -1;
  row.idx.forEach((i, k) => {
    if (LEADER_RE.test(spans[i]!.text)) lastDots = k;
  });
  const after = row.idx.slice(lastDots + 1);
  const values: string[] = [];
  let prevX1 = -Infinity;
  for (const i of after) {
    const s = spans[i]!;
    const t = s.text.trim();
    if (!t) continue;
    if (values.length && s.bbox.x0 - prevX1 <= row.size) values[values.length - 1] += ` ${t}`;
    else values.push(t);
    prevX1 = s.bbox.x1;
  }
  // The dots and the value in one span ("…… 0.47"): the value is what the split left.
  if (!values.length) values.push(m[2]!.trim());
  // A value holds a letter or a digit: a fill-in line's closing dot is none.
  if (values.some((v) => v.length > MAX_VALUE_CHARS || LEADER_RE.test(v) || !/[\p{L}\p{N}]/u.test(v))) return undefined;
  return { row, label, values, x1: row.bbox.x1 };
}

/** Leader-dot tables among the spans not yet `taken`. */
export function leaderTables(spans: TextSpan[], taken: Set<number>): LeaderTable[] {
  // Cheap test first: a page without leader runs has none.
  if (spans.filter((s) => LEADER_RE.test(s.text)).length < MIN_ROWS) return [];
  const rows = rowsOf(spans, taken);
  const entries = rows.map((r) => entryOf(spans, r));
  const out: LeaderTable[] = [];
  let k = 0;
  while (k < rows.length) {
    if (!entries[k]) {
      k++;
      continue;
    }
    let end = k + 1;
    while (end < rows.length) {
      const prev = rows[end - 1]!.bbox;
      const cur = rows[end]!.bbox;
      const h = Math.max(prev.y1 - prev.y0, cur.y1 - cur.y0);
      if (cur.y0 - prev.y1 > MAX_ROW_GAP * h) break;
      // Two rows in a row without a leader end the block (a paragraph after the list).
      if (!entries[end] && !entries[end - 1]) break;
      end++;
    }
    while (end > k && !entries[end - 1]) end--;
    const t = credibleBlock(spans, rows.slice(k, end), entries.slice(k, end));
    if (t) out.push(t);
    k = end;
  }
  return out;
}

function credibleBlock(spans: TextSpan[], rows: Row[], entries: (Entry | undefined)[]): LeaderTable | undefined {
  const dotted = entries.filter((e): e is Entry => e !== undefined);
  if (dotted.length < MIN_ROWS) return undefined;
  // Flush right: the most common right edge of the values.
  const edges = dotted.map((e) => e.x1);
  const edge = edges
    .map((x) => ({ x, n: edges.filter((y) => Math.abs(y - x) <= FLUSH_TOLERANCE).length }))
    .reduce((a, b) => (b.n > a.n ? b : a));
  if (edge.n < FLUSH_SHARE * dotted.length) return undefined;
  // A row running past the values' edge is prose beside or across the list, not a row of it.
  if (rows.some((r) => r.bbox.x1 > edge.x + FLUSH_TOLERANCE)) return undefined;
  const cols = 1 + Math.max(...dotted.map((e) => e.values.length));
  const cells: OtslCell[][] = [];
  let pending = '';
  const text = (r: Row) => joined(spans, r.idx);
  rows.forEach((r, i) => {
    const e = entries[i];
    if (!e) {
      // A label's first line, wrapped onto the dotted row under it (which starts at its edge).
      const next = entries[i + 1];
      const t = text(r);
      if (next && Math.abs(next.row.bbox.x0 - r.bbox.x0) <= FLUSH_TOLERANCE && !/:$/.test(t)) {
        pending = pending ? `${pending} ${t}` : t;
        return;
      }
      cells.push([{ tag: 'fcel', text: pending ? `${pending} ${t}` : t }, ...empty(cols - 1)]);
      pending = '';
      return;
    }
    const label = pending ? `${pending} ${e.label}` : e.label;
    pending = '';
    // Values fill the rightmost columns: a row with one value puts it in the last column.
    const vals: OtslCell[] = [...empty(cols - 1 - e.values.length), ...e.values.map(fcel)];
    cells.push([fcel(label), ...vals]);
  });
  return {
    bbox: {
      x0: Math.min(...rows.map((r) => r.bbox.x0)),
      y0: rows[0]!.bbox.y0,
      x1: Math.max(...rows.map((r) => r.bbox.x1)),
      y1: rows[rows.length - 1]!.bbox.y1,
    },
    rows: cells,
    spanIndices: rows.flatMap((r) => r.idx),
  };
}

function fcel(text: string): OtslCell {
  return { tag: 'fcel', text };
}

function empty(n: number): OtslCell[] {
  return Array.from({ length: Math.max(0, n) }, () => ({ tag: 'ecel' as const, text: '' }));
}
