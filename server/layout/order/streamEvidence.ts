/**
 * What the content stream's order says about layout. pdf.js gives text runs in the order the
 * producer drew them; most producers (LaTeX, Chromium, LibreOffice, Word) draw text in reading
 * order, and write a space between the words of one line. That order is evidence, weighed
 * against geometry: it is followed only where it agrees with what the page shows.
 */
import type { TextSpan } from '../../model/content';

/** A list marker ("3." "a)" "•" "–"): a run of its own, or leading a run's first word. */
const LIST_MARKER = '([0-9]{1,3}[.)]|[a-z][.)]|[•◦▪‣–-])';
const MARKER_RUN = new RegExp(`^\\s?${LIST_MARKER}$`, 'u');
const MARKER_PREFIX = new RegExp(`^\\s?${LIST_MARKER}\\s+(?=\\p{L})`, 'u');

/** Run `b` follows run `a` in the stream on the same line, after a word space the producer wrote. */
export function spacedSuccessor(a: TextSpan, b: TextSpan, streamA: number, streamB: number): boolean {
  if (streamB !== streamA + 1 || a.eol || !/^\s/.test(b.text)) return false;
  const ha = a.bbox.y1 - a.bbox.y0;
  const hb = b.bbox.y1 - b.bbox.y0;
  const overlap = Math.min(a.bbox.y1, b.bbox.y1) - Math.max(a.bbox.y0, b.bbox.y0);
  return overlap > 0.5 * Math.min(ha, hb) && b.bbox.x0 >= a.bbox.x1 - 1;
}

/**
 * Runs of one row (sorted by x) that are words of one justified line: a chain of spaced
 * successors whose spaces are all about as wide (justification spreads the slack evenly; table
 * cells that pdf.js joined with a guessed space have gaps as uneven as their contents). Returns
 * the runs that continue the line of the run before them, however wide the space.
 */
export function justifiedContinuations(
  row: TextSpan[],
  streamAt: Map<TextSpan, number>,
  flushRight?: (x: number) => boolean,
): Set<TextSpan> {
  const out = new Set<TextSpan>();
  // A chain of words; a word is one run or several runs glued together (Chromium draws a
  // ligature as a run of its own: "signi" "ﬁ" "cantly").
  let chain: TextSpan[][] = [];
  const close = () => {
    // A list marker's gap is the list's indent, not a justified space: judge the words after it.
    if (chain.length > 2 && MARKER_RUN.test(chain[0].map((s) => s.text).join(''))) chain = chain.slice(1);
    if (chain.length >= 2) {
      const gaps = chain.slice(1).map((w, k) => w[0].bbox.x0 - chain[k][chain[k].length - 1].bbox.x1);
      const size = Math.min(...chain.flat().map((s) => s.fontSize));
      const lo = Math.min(...gaps);
      const hi = Math.max(...gaps);
      // One space: two words of a short justified line ("responsibility      model").
      // The first run may carry its list marker ("2. Shows"): the marker is not a word.
      const wordText = (w: TextSpan[], k: number) => {
        const t = w.map((s) => s.text).join('');
        return k === 0 ? t.replace(MARKER_PREFIX, '') : t;
      };
      const words = chain.every((w, k) => /^\s?\p{L}[\p{L}\p{M},.;:'’-]*$/u.test(wordText(w, k)));
      const even = gaps.length >= 2 ? hi <= lo * 1.3 + 0.5 : hi <= size * 2 || words;
      // Narrow justified columns stretch a space to 5 em and more, between real words; a row of
      // single letters or numbers that far apart is table cells.
      const letters = (w: TextSpan[], k: number) => wordText(w, k).replace(/[^\p{L}]/gu, '').length;
      const longWords = words && chain.every((w, k) => letters(w, k) >= 3);
      // A line of two or three words in a narrow justified column ("compares          into")
      // can stretch a space past 8 em; when its last word ends on the edge where the column's
      // full lines end, the stretch is justification, not a cell boundary.
      const last = chain[chain.length - 1]!;
      const flush =
        words &&
        letters(chain[0]!, 0) >= 3 &&
        chain.every((w, k) => letters(w, k) >= 2) &&
        flushRight !== undefined &&
        flushRight(Math.max(...last.map((s) => s.bbox.x1)));
      if (even && (flush || hi < size * (longWords ? 8 : 4))) for (const w of chain.slice(1)) out.add(w[0]);
    }
    chain = [];
  };
  for (const s of row) {
    const word = chain[chain.length - 1];
    const prev = word?.[word.length - 1];
    const next = prev !== undefined && streamAt.get(s) === (streamAt.get(prev) ?? -2) + 1;
    if (prev && next && !prev.eol && !/^\s/.test(s.text) && Math.abs(s.bbox.x0 - prev.bbox.x1) < 0.1 * s.fontSize)
      word.push(s);
    else if (
      prev &&
      spacedSuccessor(prev, s, streamAt.get(prev) ?? -2, streamAt.get(s) ?? -1) &&
      prev.monospace === s.monospace
    )
      chain.push([s]);
    else {
      close();
      chain = [[s]];
    }
  }
  close();
  return out;
}

/**
 * Right edges where many runs end (±0.75 pt): the right margins of justified columns. Numeric
 * table columns set flush right end on one edge too; `justifiedContinuations` only uses the edge
 * for chains of words (letters, the first of three or more).
 */
export function flushRightEdges(spans: TextSpan[], minRuns = 6): (x: number) => boolean {
  const bins = new Map<number, number>();
  for (const s of spans) {
    const k = Math.round(s.bbox.x1 * 2);
    bins.set(k, (bins.get(k) ?? 0) + 1);
  }
  return (x: number) => {
    const k = Math.round(x * 2);
    let n = 0;
    for (let d = -1; d <= 1; d++) n += bins.get(k + d) ?? 0;
    return n >= minRuns;
  };
}

/**
 * A "table" found by alignment alone whose rows are justified lines (see
 * `justifiedContinuations`): narrow justified columns, wide word spaces lining up row after row,
 * look like a grid; the stream says they are prose.
 */
export function isJustifiedProse(spanIndices: number[], spans: TextSpan[]): boolean {
  if (spanIndices.length < 4) return false;
  const own = spanIndices.map((i) => spans[i]);
  const streamAt = new Map<TextSpan, number>(spanIndices.map((i) => [spans[i], i]));
  // Rows by baseline neighbourhood.
  const rows: TextSpan[][] = [];
  for (const s of [...own].sort((a, b) => a.bbox.y0 - b.bbox.y0)) {
    const r = rows[rows.length - 1];
    if (r && Math.abs(r[0].bbox.y0 - s.bbox.y0) < 0.3 * s.fontSize) r.push(s);
    else rows.push([s]);
  }
  let continued = 0;
  for (const r of rows)
    continued += justifiedContinuations(
      r.sort((a, b) => a.bbox.x0 - b.bbox.x0),
      streamAt,
    ).size;
  return continued >= own.length * 0.3;
}
