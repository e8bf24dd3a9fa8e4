/**
 * Side notes (issue 31, class 3): margin notes, margin labels and sidenotes set in a narrow
 * column beside the body's text block. The XY-cut cannot separate them: the note column is
 * narrower than any text column it may cut off (`minColumnWidth`), so its lines were read row
 * by row with the paragraph beside them ("…the flavor concept / Here is a note / described in
 * this clause…"); where the margin gap is narrower than a stretched word space, a note even
 * joined the body line on its row ("…The imple- Another note").
 *
 * What a reader uses: the body's text block has strong edges (many lines start at its left edge,
 * justified lines end at its right edge); a note stands wholly outside them, in a group of lines
 * narrower than the body. A note is read as a block of its own, next to the paragraph it sits
 * beside: before it when it is a label in the left margin level with the paragraph's first line
 * (a macro name beside its description), otherwise after it.
 */
import type { BBox } from '../../../common/protocol';
import { boundsOf } from '../../../common/bbox';
import type { TextSpan } from '../../model/content';

/** The body's text block edges: where the most lines start (left) and end (right). */
export interface TextEdges {
  left?: number;
  right?: number;
}

/** Runs starting (ending) within this many points of an edge count towards it. */
const EDGE_TOLERANCE = 0.75;
/** An edge is strong with at least this many runs on it… */
const EDGE_MIN_RUNS = 8;
/** …and at least this share of the runs on the page's strongest edge. */
const EDGE_MIN_SHARE = 0.35;
/** Only runs at least this many font sizes wide count towards an edge. */
const EDGE_MIN_RUN_SIZES = 6;
/** A note stands at least this far (points) outside the edge… */
const NOTE_MIN_GAP = 3;
/** …after a gap of at least this share of the font size (wider than a word space)… */
const NOTE_MIN_GAP_SIZES = 0.6;
/** …and a hyphen or a quote may stick out of the body's edge by this much (microtype protrusion). */
const PROTRUSION = 1.5;
/** A note column is at most this share of the body's width (two text columns are not notes). */
const NOTE_MAX_BODY_SHARE = 0.6;
/** Notes are told from the body only beside at least this many body lines. */
const NOTE_MIN_BODY_LINES = 5;
/** Lines of one note stand at most this many line heights apart. */
const NOTE_LINE_GAP = 1.2;

/**
 * The body's strong edges: the leftmost x where many runs start and the rightmost x where many
 * end (±0.75 pt), each with at least 35 % of the runs of the strongest edge of its kind. On a
 * two-column page they are the outer edges of the two columns; a ragged-right page has no right
 * edge worth the name and gets none.
 */
export function textEdges(spans: TextSpan[]): TextEdges {
  const edge = (xs: number[], pickLeft: boolean): number | undefined => {
    const bins = new Map<number, number>();
    for (const x of xs) {
      const k = Math.round(x * 2);
      bins.set(k, (bins.get(k) ?? 0) + 1);
    }
    const around = (k: number) => {
      let n = 0;
      for (let d = -Math.round(EDGE_TOLERANCE * 2); d <= Math.round(EDGE_TOLERANCE * 2); d++) n += bins.get(k + d) ?? 0;
      return n;
    };
    let max = 0;
    for (const k of bins.keys()) max = Math.max(max, around(k));
    const need = Math.max(EDGE_MIN_RUNS, max * EDGE_MIN_SHARE);
    const strong = [...bins.keys()].filter((k) => around(k) >= need);
    if (!strong.length) return undefined;
    // The edge of a strong bin cluster: its most populated bin.
    const outer = pickLeft ? Math.min(...strong) : Math.max(...strong);
    let best = outer;
    for (let k = outer - 2; k <= outer + 2; k++) if ((bins.get(k) ?? 0) > (bins.get(best) ?? 0)) best = k;
    return best / 2;
  };
  // Runs of a dozen letters and more: a note's mark ("a", "- 1 -") set flush against the note
  // column is no edge of the text block.
  const text = spans.filter((s) => s.bbox.x1 - s.bbox.x0 >= EDGE_MIN_RUN_SIZES * s.fontSize);
  return {
    left: edge(
      text.map((s) => s.bbox.x0),
      true,
    ),
    right: edge(
      text.map((s) => s.bbox.x1),
      false,
    ),
  };
}

/** A list marker, a number or a lone symbol: hangs in the margin as part of its line. */
const HANGING = /^(\(?[0-9ivxlcdmIVXLCDM]{1,6}[.)]?(\.\d+)*|\(?[a-zA-Z][.)]|[^\p{L}\p{N}]{1,3})$/u;

/**
 * Whether a line being built (`cur`) ends at one of the body's edges and the next run `s` is a
 * margin note's: a run starting clear of the right edge after a line that ends on it, or the
 * body's first run at the left edge after a margin label that ends on it (a label set flush
 * against the text: "\examperiod{…}Specifies…"). A list marker or a number hanging in the margin
 * stays with its line.
 */
export function splitsAtEdge(cur: TextSpan[], s: TextSpan, edges: TextEdges): boolean {
  if (!cur.length) return false;
  let x0 = Infinity;
  let x1 = -Infinity;
  for (const c of cur) {
    x0 = Math.min(x0, c.bbox.x0);
    x1 = Math.max(x1, c.bbox.x1);
  }
  const { left, right } = edges;
  const size = Math.min(s.fontSize, cur[cur.length - 1]!.fontSize);
  if (
    right !== undefined &&
    x0 < right &&
    x1 <= right + PROTRUSION &&
    s.bbox.x0 >= right + NOTE_MIN_GAP &&
    s.bbox.x0 - x1 >= NOTE_MIN_GAP_SIZES * size
  ) {
    // Code overflowing the text block goes on in its own font.
    return !(s.monospace && cur[cur.length - 1]!.monospace);
  }
  if (
    left !== undefined &&
    Math.abs(s.bbox.x0 - left) <= EDGE_TOLERANCE &&
    x1 <= left + EDGE_TOLERANCE &&
    x0 < left - NOTE_MIN_GAP
  ) {
    const label = cur
      .map((c) => c.text)
      .join('')
      .trim();
    return (label.match(/\p{L}/gu) ?? []).length >= 3 && !HANGING.test(label);
  }
  return false;
}

/** What side notes are found among: the body's units (lines and blocks), with their boxes. */
export interface NoteUnit {
  bbox: BBox;
  /** The line's text; undefined for pictures, tables and formulas. */
  text?: string;
  /** What a unit without text is. */
  kind?: 'picture' | 'table' | 'formula' | 'line';
}

export interface SideNote<U> {
  side: 'left' | 'right';
  /** The note's lines, top to bottom. */
  units: U[];
  bbox: BBox;
}

/**
 * Groups of lines standing wholly outside the body's edges, in a column narrower than the body,
 * beside at least five body lines, with nothing else in their spot. A group without letters
 * (a page number, an equation number) is no note.
 */
export function findSideNotes<U extends NoteUnit>(units: U[], edges: TextEdges): SideNote<U>[] {
  const { left, right } = edges;
  const letters = (u: U) => u.text !== undefined && (u.text.match(/\p{L}/gu) ?? []).length >= 2;
  const sideOf = (u: U): 'left' | 'right' | undefined => {
    if (u.text === undefined) return undefined;
    if (left !== undefined && u.bbox.x1 <= left + EDGE_TOLERANCE && u.bbox.x0 < left - NOTE_MIN_GAP) return 'left';
    if (right !== undefined && u.bbox.x0 >= right + NOTE_MIN_GAP) return 'right';
    return undefined;
  };
  const candidates = new Map<U, 'left' | 'right'>();
  for (const u of units) {
    const side = sideOf(u);
    if (side) candidates.set(u, side);
  }
  if (!candidates.size) return [];
  const bodyLines = units.filter((u) => u.text !== undefined && !candidates.has(u));
  if (bodyLines.length < NOTE_MIN_BODY_LINES || candidates.size > bodyLines.length) return [];
  const bodyX0 = left ?? Math.min(...bodyLines.map((u) => u.bbox.x0));
  const bodyX1 = right ?? Math.max(...bodyLines.map((u) => u.bbox.x1));
  const out: SideNote<U>[] = [];
  for (const side of ['left', 'right'] as const) {
    const own = [...candidates].filter(([, s]) => s === side).map(([u]) => u);
    if (!own.length) continue;
    const x0 = Math.min(...own.map((u) => u.bbox.x0));
    const x1 = Math.max(...own.map((u) => u.bbox.x1));
    if (x1 - x0 > NOTE_MAX_BODY_SHARE * (bodyX1 - bodyX0)) continue;
    // A picture or a table in that margin column makes it a sidebar (an infobox): a column the
    // XY-cut reads whole, not notes beside paragraphs.
    const sidebar = (u: U) => u.kind === 'picture' || u.kind === 'table';
    if (units.some((u) => sidebar(u) && u.bbox.x0 >= x0 - NOTE_MIN_GAP && u.bbox.x1 <= x1 + NOTE_MIN_GAP)) continue;
    for (const g of stacks(own)) {
      // A page number or an equation number alone in the margin is no note; a note's mark is.
      if (!g.some(letters)) continue;
      // Words side by side on two rows or more are a table's rows (label and value), not a note.
      if (wordRows(g.filter(letters)) >= 2) continue;
      const box = boundsOf(g.map((u) => u.bbox));
      // A formula inside the note (a label's math brackets read as math) is the note's.
      const within = (u: U) =>
        u.bbox.x0 >= box.x0 - 1 && u.bbox.x1 <= box.x1 + 1 && u.bbox.y0 >= box.y0 - 1 && u.bbox.y1 <= box.y1 + 1;
      const inner = units.filter((u) => u.kind === 'formula' && within(u));
      // Narrower than the body lines beside it: the last of several text columns (a newspaper's
      // fourth column, on a page whose strong right edge is the third's) is as wide as the others.
      const beside = bodyLines.filter((u) => Math.min(u.bbox.y1, box.y1) - Math.max(u.bbox.y0, box.y0) > 0);
      if (box.x1 - box.x0 > NOTE_MAX_BODY_SHARE * medianWidth(beside.length ? beside : bodyLines)) continue;
      // Beside the text block itself: a body line on the note's rows reaches the edge (centred
      // title lines that happen to end on one x are no text block).
      const edge = side === 'left' ? left! : right!;
      const onEdge = (u: U) =>
        side === 'left' ? Math.abs(u.bbox.x0 - edge) <= EDGE_TOLERANCE : Math.abs(u.bbox.x1 - edge) <= PROTRUSION;
      if (!beside.some(onEdge)) continue;
      // Something else in the note's spot (a wide equation or figure reaching into the margin):
      // leave the page as it is.
      const crowded = units.some(
        (u) =>
          !candidates.has(u) &&
          !inner.includes(u) &&
          Math.min(u.bbox.x1, box.x1) - Math.max(u.bbox.x0, box.x0) > 0 &&
          Math.min(u.bbox.y1, box.y1) - Math.max(u.bbox.y0, box.y0) > 1,
      );
      if (crowded) continue;
      // A callout mark drawn over the body text on the note's row ("— 1 —" of an alert) is the
      // note's: read with it, not between two lines of the paragraph under it.
      for (const u of units) {
        if (candidates.has(u) || u.text === undefined || letters(u) || !g.some((v) => sameRow(u.bbox, v.bbox, 0.3)))
          continue;
        if (
          bodyLines.some((b) => b !== u && sameRow(u.bbox, b.bbox) && b.bbox.x0 <= u.bbox.x0 && b.bbox.x1 >= u.bbox.x1)
        )
          g.unshift(u);
      }
      g.push(...inner);
      g.sort((a, b) => (sameRow(a.bbox, b.bbox) ? a.bbox.x0 - b.bbox.x0 : a.bbox.y0 - b.bbox.y0));
      out.push({ side, units: g, bbox: box });
    }
  }
  return out.sort((a, b) => a.bbox.y0 - b.bbox.y0);
}

/**
 * Lines chained top to bottom: each within NOTE_LINE_GAP line heights of the last and
 * overlapping it across, or on a row of the group (a note's mark beside its first line).
 */
function stacks<U extends NoteUnit>(us: U[]): U[][] {
  const sorted = [...us].sort((a, b) => a.bbox.y0 - b.bbox.y0 || a.bbox.x0 - b.bbox.x0);
  const groups: U[][] = [];
  for (const u of sorted) {
    const h = u.bbox.y1 - u.bbox.y0;
    const g = groups.find((grp) =>
      grp.some((v) => {
        if (sameRow(u.bbox, v.bbox)) return true;
        const gap = u.bbox.y0 - v.bbox.y1;
        const across = Math.min(u.bbox.x1, v.bbox.x1) - Math.max(u.bbox.x0, v.bbox.x0) > 0;
        return across && gap >= -1 && gap <= NOTE_LINE_GAP * Math.max(h, v.bbox.y1 - v.bbox.y0);
      }),
    );
    if (g) g.push(u);
    else groups.push([u]);
  }
  // Read row by row, left to right within a row.
  for (const g of groups) g.sort((a, b) => (sameRow(a.bbox, b.bbox) ? a.bbox.x0 - b.bbox.x0 : a.bbox.y0 - b.bbox.y0));
  return groups;
}

/** Boxes on one row: overlapping by `share` (half) of the lower one's height. */
function sameRow(a: BBox, b: BBox, share = 0.5): boolean {
  return Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0) > share * Math.min(a.y1 - a.y0, b.y1 - b.y0);
}

function medianWidth(us: NoteUnit[]): number {
  const w = us.map((u) => u.bbox.x1 - u.bbox.x0).sort((a, b) => a - b);
  return w[Math.floor(w.length / 2)] ?? 0;
}

/** Rows on which two or more of the lines stand side by side. */
function wordRows<U extends NoteUnit>(us: U[]): number {
  const rows = new Set<U>();
  for (const a of us)
    for (const b of us)
      if (a !== b && a.bbox.x0 < b.bbox.x0 && Math.min(a.bbox.y1, b.bbox.y1) - Math.max(a.bbox.y0, b.bbox.y0) > 0)
        rows.add(a);
  return rows.size;
}

/**
 * Where a note is read among the body's ordered units: next to the paragraph (`paragraphs`:
 * index ranges of the ordered units, first to last) that holds the body line beside the note's
 * first line. Returns the index to insert before. A left-margin note whose top is level with the
 * paragraph's first line is its label, read first; any other note is read after the paragraph.
 */
export function noteInsertAt(
  note: SideNote<NoteUnit>,
  ordered: NoteUnit[],
  paragraphs: { first: number; last: number }[],
): number {
  const first = note.units[0]!.bbox;
  const mid = (b: BBox) => (b.y0 + b.y1) / 2;
  let best = -1;
  let bestScore = Infinity;
  ordered.forEach((u, i) => {
    if (u.text === undefined) return;
    const overlap = Math.min(u.bbox.y1, first.y1) - Math.max(u.bbox.y0, first.y0);
    const dx = note.side === 'left' ? u.bbox.x0 - first.x1 : first.x0 - u.bbox.x1;
    if (dx < 0) return;
    // Level with the note first, then nearest across; otherwise the nearest line up or down.
    const score = overlap > 0 ? dx : 1e6 + Math.abs(mid(u.bbox) - mid(first));
    if (score < bestScore) {
      best = i;
      bestScore = score;
    }
  });
  if (best < 0) return ordered.length;
  const para = paragraphs.find((p) => p.first <= best && best <= p.last) ?? { first: best, last: best };
  const top = ordered[para.first]!.bbox;
  const h = top.y1 - top.y0;
  if (note.side === 'left' && first.y0 <= top.y0 + 0.5 * h) return para.first;
  return para.last + 1;
}
