/**
 * Splitting a document into page-range jobs. Each range converts its own pages and also
 * analyses up to `window` selected pages on each side (the furniture window of
 * convert/convertDocument.ts), so page headers and footers at a range's edges are judged on the
 * same neighbours as in a whole-document conversion; only the range's own pages are stored.
 */

export interface PageRange {
  /** Pages this range delivers (a slice of the selection, in order). */
  pages: number[];
  /** Pages it analyses: its own plus the look-back/look-ahead neighbours in the selection. */
  context: number[];
}

export function planRanges(selected: readonly number[], rangePages: number, window: number): PageRange[] {
  if (!Number.isInteger(rangePages) || rangePages < 1)
    throw new Error(`range size must be a whole number ≥ 1, not ${rangePages}`);
  const out: PageRange[] = [];
  for (let i = 0; i < selected.length; i += rangePages) {
    const end = Math.min(selected.length, i + rangePages);
    out.push({
      pages: selected.slice(i, end),
      context: selected.slice(Math.max(0, i - window), Math.min(selected.length, end + window)),
    });
  }
  return out;
}

/** A page list as a selection string for `convertDocument` ("3-9,12"). */
export function toSelection(pages: readonly number[]): string {
  const parts: string[] = [];
  let start = pages[0];
  let prev = pages[0];
  for (let i = 1; i <= pages.length; i++) {
    const p = pages[i];
    if (p === prev + 1) {
      prev = p;
      continue;
    }
    parts.push(start === prev ? `${start}` : `${start}-${prev}`);
    start = prev = p;
  }
  return parts.join(',');
}
