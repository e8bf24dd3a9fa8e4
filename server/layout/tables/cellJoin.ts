/**
 * Joining the lines of one table cell. A word broken in a column too narrow for it ("HellaSw" +
 * "ag", no hyphen) joins without a space; two words wrapped at their space ("Metered" +
 * "volume") keep it. The geometry is the same for both (the first line fills its column, the
 * second starts in lower case), so the page's own words decide (issue 40, class 4): when the
 * second line's first word stands on the page as a word elsewhere too (in other cells, in the
 * text), the line broke at a space; the tail of a broken word ("ag", "ed") stands nowhere else.
 * The first part is no evidence: "Window" + "ed" is a word broken after a word.
 */
import type { TextSpan } from '../../model/content';

/** How often each word (lower case, letters and digits only) occurs on the page. */
export type PageWords = Map<string, number>;

function wordKey(w: string): string {
  return w.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
}

export function pageWords(spans: TextSpan[]): PageWords {
  const m: PageWords = new Map();
  for (const s of spans)
    for (const w of s.text.split(/\s+/)) {
      const k = wordKey(w);
      if (k) m.set(k, (m.get(k) ?? 0) + 1);
    }
  return m;
}

/** A word seen on the page at least twice: here and somewhere else. */
function standsAlone(w: string, words: PageWords | undefined): boolean {
  const k = wordKey(w);
  return k.length >= 2 && (words?.get(k) ?? 0) >= 2;
}

/** Joins a cell's lines: a word broken in a narrow column ("HellaSw" + "ag") joins without a space. */
export function joinCell(prev: string, next: string, prevFull: boolean, words?: PageWords): string {
  if (!prev) return next;
  if (!next) return prev;
  if (/[-‐]$/.test(prev) && /^\p{Ll}/u.test(next)) return prev + next;
  if (prevFull && !/\s/.test(prev) && /^\p{Ll}/u.test(next) && /\p{L}$/u.test(prev)) {
    const head = next.split(/\s/)[0]!;
    if (!standsAlone(head, words)) return prev + next;
  }
  return `${prev} ${next}`;
}
