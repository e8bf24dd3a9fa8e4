/** Page selections such as "1-3,7,10-" (1-based, inclusive; an open end means "to the last page"). */

export function parsePageSelection(spec: string | undefined, pageCount: number): number[] {
  if (spec === undefined || spec.trim() === '' || spec.trim() === 'all') {
    return Array.from({ length: pageCount }, (_, i) => i + 1);
  }
  const pages = new Set<number>();
  for (const raw of spec.split(',')) {
    const part = raw.trim();
    if (part === '') continue;
    const m = /^(\d*)\s*(-)?\s*(\d*)$/.exec(part);
    if (!m || (m[1] === '' && m[3] === '')) throw new Error(`bad page selection "${part}" (use e.g. 1-3,7)`);
    const from = m[1] === '' ? 1 : Number(m[1]);
    const to = m[2] ? (m[3] === '' ? pageCount : Number(m[3])) : from;
    if (from < 1 || to < from) throw new Error(`bad page range "${part}"`);
    for (let p = from; p <= Math.min(to, pageCount); p++) pages.add(p);
  }
  const list = [...pages].sort((a, b) => a - b);
  if (list.length === 0) throw new Error(`page selection "${spec}" selects no page of ${pageCount}`);
  return list;
}
