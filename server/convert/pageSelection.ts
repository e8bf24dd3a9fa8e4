/** Page selections such as "1-3,7,10-" (1-based, inclusive; an open end means "to the last page"). */
import { FolioError } from '../errors';
import { FolioErrorCodes } from '../../common/protocol';

function isAll(spec: string | undefined): boolean {
  return spec === undefined || spec.trim() === '' || spec.trim() === 'all';
}

/** The selection's ranges, clamped to the document (empty ones dropped), as written. */
function selectionRanges(spec: string, pageCount: number): [number, number][] {
  const out: [number, number][] = [];
  for (const raw of spec.split(',')) {
    const part = raw.trim();
    if (part === '') continue;
    const m = /^(\d*)\s*(-)?\s*(\d*)$/.exec(part);
    if (!m || (m[1] === '' && m[3] === ''))
      throw new FolioError(FolioErrorCodes.InvalidParams, `bad page selection "${part}" (use e.g. 1-3,7)`);
    const from = m[1] === '' ? 1 : Number(m[1]);
    const to = m[2] ? (m[3] === '' ? pageCount : Number(m[3])) : from;
    if (from < 1 || to < from) throw new FolioError(FolioErrorCodes.InvalidParams, `bad page range "${part}"`);
    if (from <= Math.min(to, pageCount)) out.push([from, Math.min(to, pageCount)]);
  }
  return out;
}

export function parsePageSelection(spec: string | undefined, pageCount: number): number[] {
  if (isAll(spec)) return Array.from({ length: pageCount }, (_, i) => i + 1);
  const pages = new Set<number>();
  for (const [from, to] of selectionRanges(spec!, pageCount)) for (let p = from; p <= to; p++) pages.add(p);
  const list = [...pages].sort((a, b) => a - b);
  if (list.length === 0)
    throw new FolioError(FolioErrorCodes.InvalidParams, `page selection "${spec}" selects no page of ${pageCount}`);
  return list;
}

/**
 * How many pages a selection names, counted from its ranges without listing them: the page
 * limit is checked with it before any page is enumerated (a PDF may declare a million pages).
 */
export function countPageSelection(spec: string | undefined, pageCount: number): number {
  if (isAll(spec)) return pageCount;
  const ranges = selectionRanges(spec!, pageCount).sort((a, b) => a[0] - b[0]);
  let count = 0;
  let end = 0;
  for (const [from, to] of ranges) {
    if (to <= end) continue;
    count += to - Math.max(from, end + 1) + 1;
    end = to;
  }
  return count;
}
