/**
 * Justified lines on scanned pages. OCR has no content stream to say that two words far apart
 * are one line (streamEvidence.ts), and the text detector splits a justified line of a narrow
 * column at its wide spaces: `buildLines` then makes each piece a line of its own (and a skewed
 * scan can even put the pieces in different rows). The page says they are one line: pieces side
 * by side in one column, together starting on the column's left edge and ending on its right
 * edge, made of words whose spaces are all about as wide (justification spreads the slack
 * evenly), are one justified line. Table rows are not: detected tables have left the text flow
 * before lines are built, and a row of cells has uneven gaps or numbers.
 */
import type { TextSpan } from '../../model/content';
import type { Line } from './line';

/** lines/index.ts `makeLine`, passed in: lines/index.ts calls this module, so it is not imported back. */
type MakeLine = (spans: TextSpan[], rtl: boolean) => Line;

type Gutter = { x0: number; x1: number };

/** Whether at least `minCount` of the sorted values lie within ±tol of x. */
function frequent(sorted: number[], x: number, minCount: number, tol: number): boolean {
  return lowerBound(sorted, x + tol + 1e-9) - lowerBound(sorted, x - tol) >= minCount;
}

function lowerBound(a: number[], v: number): number {
  let l = 0;
  let r = a.length;
  while (l < r) {
    const m = (l + r) >> 1;
    if (a[m]! < v) l = m + 1;
    else r = m;
  }
  return l;
}

const ABBREVIATIONS = new Set([
  'al.',
  'etc.',
  'vs.',
  'cf.',
  'fig.',
  'figs.',
  'eq.',
  'eqs.',
  'no.',
  'vol.',
  'pp.',
  'ch.',
  'sec.',
  'ca.',
  'approx.',
  'resp.',
  'viz.',
]);
const WORD = /^["'“‘(]?\p{L}[\p{L}\p{M}'’-]*[.,;:!?"'”’)]*$/u;

/** Lines of OCR'd words, with the pieces of each justified line joined into one line. */
export function mergeJustifiedOcrLines(lines: Line[], gutters: Gutter[], makeLine: MakeLine): Line[] {
  const ocr = lines.filter((l) => l.spans.length > 0 && l.spans.every((s) => s.fontName === 'ocr'));
  if (ocr.length < 6) return dropCropStops(lines, makeLine);
  const starts = ocr.map((l) => l.bbox.x0).sort((a, b) => a - b);
  const ends = ocr.map((l) => l.bbox.x1).sort((a, b) => a - b);
  // Column of a line: how many gutters lie left of its middle.
  const column = (l: Line) => gutters.filter((g) => (l.bbox.x0 + l.bbox.x1) / 2 > (g.x0 + g.x1) / 2).length;
  const byY = [...ocr].sort((a, b) => a.bbox.y0 + a.bbox.y1 - b.bbox.y0 - b.bbox.y1);
  const used = new Set<Line>();
  const replaced = new Map<Line, Line | null>();
  for (const l of byY) {
    if (used.has(l)) continue;
    const h = l.bbox.y1 - l.bbox.y0;
    const cy = (l.bbox.y0 + l.bbox.y1) / 2;
    const col = column(l);
    const group = byY.filter(
      (m) =>
        !used.has(m) &&
        column(m) === col &&
        Math.abs((m.bbox.y0 + m.bbox.y1) / 2 - cy) < 0.5 * Math.min(h, m.bbox.y1 - m.bbox.y0),
    );
    if (group.length < 2) continue;
    group.sort((a, b) => a.bbox.x0 - b.bbox.x0);
    // Pieces must not overlap (two lines of one row, not a line and a stray box over it).
    if (group.some((m, k) => k > 0 && m.bbox.x0 < group[k - 1]!.bbox.x1)) continue;
    const words: TextSpan[] = group.flatMap((m) => [...m.spans].sort((a, b) => a.bbox.x0 - b.bbox.x0));
    const size = Math.min(...words.map((s) => s.fontSize));
    const tol = Math.max(2, size * 0.2);
    if (!frequent(starts, group[0]!.bbox.x0, 5, tol) || !frequent(ends, group[group.length - 1]!.bbox.x1, 5, tol))
      continue;
    if (!words.every((s) => WORD.test(s.text.trim()))) continue;
    const gaps = words.slice(1).map((s, k) => s.bbox.x0 - words[k]!.bbox.x1);
    const lo = Math.min(...gaps);
    const hi = Math.max(...gaps);
    if (lo < 0 || hi > lo * 1.6 + size * 0.3) continue;
    // The recognizer tends to end a crop with a full stop; where the detector cut a justified line,
    // a stop before a word in lower case is that artefact, not a sentence end ("shows. estimate").
    const pieceEnds = new Set(group.slice(0, -1).map((m) => m.spans.reduce((a, b) => (b.bbox.x1 > a.bbox.x1 ? b : a))));
    const cleaned = words.map((s, k) =>
      pieceEnds.has(s) &&
      /^\p{L}{2,}\.$/u.test(s.text.trim()) &&
      !ABBREVIATIONS.has(s.text.trim().toLowerCase()) &&
      /^\p{Ll}/u.test(words[k + 1]?.text.trim() ?? '')
        ? { ...s, text: s.text.trim().slice(0, -1) }
        : s,
    );
    const line = makeLine(cleaned, false);
    group.forEach((m, k) => {
      used.add(m);
      replaced.set(m, k === 0 ? line : null);
    });
  }
  const out: Line[] = [];
  for (const l of lines) {
    const r = replaced.get(l);
    if (r === undefined) out.push(l);
    else if (r !== null) out.push(r);
  }
  return dropCropStops(out, makeLine);
}

/**
 * The recognizer tends to end a crop with a full stop. At the end of an OCR'd line whose next
 * line (right under it, same column) goes on in lower case, a stop after a plain word is that
 * artefact: a sentence does not go on in lower case. Abbreviations keep theirs.
 */
function dropCropStops(lines: Line[], makeLine: MakeLine): Line[] {
  return lines.map((l) => {
    const last = l.spans.reduce<TextSpan | undefined>((a, b) => (!a || b.bbox.x1 > a.bbox.x1 ? b : a), undefined);
    if (!last || last.fontName !== 'ocr') return l;
    const word = last.text.trim();
    if (!/^\p{L}{2,}\.$/u.test(word) || ABBREVIATIONS.has(word.toLowerCase())) return l;
    const h = l.bbox.y1 - l.bbox.y0;
    const next = lines
      .filter(
        (m) =>
          m !== l &&
          m.bbox.y0 > l.bbox.y0 + 0.5 * h &&
          m.bbox.y0 < l.bbox.y1 + 0.8 * h &&
          Math.min(m.bbox.x1, l.bbox.x1) - Math.max(m.bbox.x0, l.bbox.x0) >
            0.5 * Math.min(m.bbox.x1 - m.bbox.x0, l.bbox.x1 - l.bbox.x0),
      )
      .sort((a, b) => a.bbox.y0 - b.bbox.y0)[0];
    if (!next || !/^\p{Ll}/u.test(next.text)) return l;
    const spans = l.spans.map((s) => (s === last ? { ...s, text: word.slice(0, -1) } : s));
    return makeLine(spans, l.rtl);
  });
}

/**
 * A "table" found by alignment alone on a scan whose rows are justified lines. Either each row
 * starts on the table's left edge and ends on its right edge, every cell a word (the wide, evenly
 * stretched spaces of a narrow column line up like cell gaps), or most of its words are pieces of
 * the page's justified lines (`inJustifiedLines`): a block that takes in a few words of rows in
 * two columns (the end of a left-column line, the start of the right column's) has neither edge.
 * The born-digital counterpart is streamEvidence `isJustifiedProse`.
 */
export function isJustifiedOcrProse(spanIndices: number[], spans: TextSpan[]): boolean {
  const own = spanIndices.map((i) => spans[i]!);
  if (own.length < 6 || !own.every((s) => s.fontName === 'ocr')) return false;
  if (own.every((s) => WORD.test(s.text.trim())) && flushRows(own)) return true;
  const justified = justifiedOf(spans);
  return spanIndices.filter((i) => justified.has(i)).length >= JUSTIFIED_SHARE * own.length;
}

/** Share of a "table's" words that must be pieces of justified lines for it to be prose. */
const JUSTIFIED_SHARE = 0.7;

/** `inJustifiedLines` once per page's spans: every table found by alignment on the page asks it. */
const justifiedCache = new WeakMap<TextSpan[], Set<number>>();
function justifiedOf(spans: TextSpan[]): Set<number> {
  let found = justifiedCache.get(spans);
  if (!found) justifiedCache.set(spans, (found = inJustifiedLines(spans)));
  return found;
}

function flushRows(own: TextSpan[]): boolean {
  const x0 = Math.min(...own.map((s) => s.bbox.x0));
  const x1 = Math.max(...own.map((s) => s.bbox.x1));
  const rows: TextSpan[][] = [];
  for (const s of [...own].sort((a, b) => a.bbox.y0 + a.bbox.y1 - b.bbox.y0 - b.bbox.y1)) {
    const r = rows[rows.length - 1];
    const h = s.bbox.y1 - s.bbox.y0;
    if (r && Math.abs((r[0]!.bbox.y0 + r[0]!.bbox.y1) / 2 - (s.bbox.y0 + s.bbox.y1) / 2) < 0.5 * h) r.push(s);
    else rows.push([s]);
  }
  const multi = rows.filter((r) => r.length >= 2);
  if (multi.length < 3) return false;
  const flush = multi.filter((r) => {
    const tol = Math.max(2, 0.2 * Math.min(...r.map((s) => s.fontSize)));
    return Math.min(...r.map((s) => s.bbox.x0)) <= x0 + tol && Math.max(...r.map((s) => s.bbox.x1)) >= x1 - tol;
  });
  return flush.length >= 0.7 * multi.length;
}

/**
 * The OCR words of the page (indices) that are pieces of justified lines: a run of three words
 * or more side by side in one row that starts on an edge where many detected lines start (a
 * column's left edge), ends on one where many end (its right edge), and whose spaces are all
 * about as wide (justification spreads a line's slack evenly). A table's gaps follow its
 * columns' positions and vary from row to row with the cells' lengths; its numbers are no words.
 */
export function inJustifiedLines(spans: TextSpan[]): Set<number> {
  const ocr = spans.map((s, i) => i).filter((i) => spans[i]!.fontName === 'ocr' && spans[i]!.text.trim() !== '');
  const out = new Set<number>();
  if (ocr.length < 6) return out;
  // Detected lines start after a span that ended one (ocrPage.ts marks each line's last word `eol`).
  const starts = ocr
    .filter((i, k) => k === 0 || spans[ocr[k - 1]!]!.eol)
    .map((i) => spans[i]!.bbox.x0)
    .sort((a, b) => a - b);
  const ends = ocr
    .filter((i) => spans[i]!.eol)
    .map((i) => spans[i]!.bbox.x1)
    .sort((a, b) => a - b);
  const cy = (i: number) => (spans[i]!.bbox.y0 + spans[i]!.bbox.y1) / 2;
  const byY = [...ocr].sort((a, b) => cy(a) - cy(b));
  for (const i of byY) {
    const h = spans[i]!.bbox.y1 - spans[i]!.bbox.y0;
    const row = byY
      .filter((j) => Math.abs(cy(j) - cy(i)) < 0.5 * Math.min(h, spans[j]!.bbox.y1 - spans[j]!.bbox.y0))
      .sort((a, b) => spans[a]!.bbox.x0 - spans[b]!.bbox.x0);
    const at = row.indexOf(i);
    // Runs of the row through this word: from a left edge at or before it to a right edge at or after it.
    for (let a = at; a >= 0 && !out.has(i); a--) {
      const size = spans[row[a]!]!.fontSize;
      const tol = Math.max(2, size * 0.2);
      if (!frequent(starts, spans[row[a]!]!.bbox.x0, 5, tol)) continue;
      for (let b = Math.max(at, a + 2); b < row.length; b++) {
        if (!frequent(ends, spans[row[b]!]!.bbox.x1, 5, tol)) continue;
        const run = row.slice(a, b + 1).map((j) => spans[j]!);
        if (!run.every((s) => WORD.test(s.text.trim()))) break;
        const gaps = run.slice(1).map((s, k) => s.bbox.x0 - run[k]!.bbox.x1);
        const lo = Math.min(...gaps);
        const hi = Math.max(...gaps);
        if (lo >= 0 && hi <= lo * 1.6 + size * 0.3) for (const j of row.slice(a, b + 1)) out.add(j);
        break;
      }
    }
  }
  return out;
}
