/**
 * Tables as olmOCR-bench's table test sees them (olmocr/bench/table_parsing.py, reimplemented):
 * a grid of cells addressed by (row, col) of their top-left slot, each with the set of cells
 * directly up/down/left/right of it (several where spans meet), heading cells (Markdown: the
 * first row and the first column; HTML: `<th>` or inside `<thead>`), and the walk to the
 * top/left heading. Markdown tables are runs of lines containing `|`; HTML tables are read with
 * a small tag scanner instead of BeautifulSoup (nested tables are not split out; the converters
 * compared here do not write them).
 */

export type CellId = string; // "row,col"

export interface CellSpec {
  text: string;
  rowspan: number;
  colspan: number;
  heading: boolean;
}

export interface TableGraph {
  cellText: Map<CellId, string>;
  headings: Set<CellId>;
  up: Map<CellId, Set<CellId>>;
  down: Map<CellId, Set<CellId>>;
  left: Map<CellId, Set<CellId>>;
  right: Map<CellId, Set<CellId>>;
}

const id = (r: number, c: number): CellId => `${r},${c}`;

/** Each cell's nearest other cells up, down, left and right over the occupancy grid (spans count once). */
function neighbours(
  occ: (CellId | undefined)[][],
  meta: Map<CellId, { row: number; col: number; rowspan: number; colspan: number }>,
  cells: CellId[],
  width: number,
): Pick<TableGraph, 'up' | 'down' | 'left' | 'right'> {
  const height = occ.length;
  const rel = () => new Map<CellId, Set<CellId>>(cells.map((k) => [k, new Set<CellId>()]));
  const up = rel();
  const down = rel();
  const left = rel();
  const right = rel();
  for (const [cid, m] of meta) {
    const rowEnd = m.row + m.rowspan - 1;
    const colEnd = m.col + m.colspan - 1;
    const firstOther = (cells: (CellId | undefined)[]) => cells.find((n) => n !== undefined && n !== cid);
    for (let r = m.row; r <= rowEnd && r < height; r++) {
      const rn = firstOther(occ[r].slice(colEnd + 1));
      if (rn) right.get(cid)!.add(rn);
      const ln = firstOther(occ[r].slice(0, m.col).reverse());
      if (ln) left.get(cid)!.add(ln);
    }
    for (let c = m.col; c <= colEnd && c < width; c++) {
      const dn = firstOther(occ.slice(rowEnd + 1).map((row) => row[c]));
      if (dn) down.get(cid)!.add(dn);
      const un = firstOther(
        occ
          .slice(0, m.row)
          .map((row) => row[c])
          .reverse(),
      );
      if (un) up.get(cid)!.add(un);
    }
  }
  return { up, down, left, right };
}

export function buildTable(rows: CellSpec[][]): TableGraph | undefined {
  if (rows.length === 0) return undefined;
  const cellText = new Map<CellId, string>();
  const headings = new Set<CellId>();
  const meta = new Map<CellId, { row: number; col: number; rowspan: number; colspan: number }>();
  const occ: (CellId | undefined)[][] = [];
  const active: ([CellId, number] | undefined)[] = [];
  rows.forEach((cells, r) => {
    const entries: (CellId | undefined)[] = [];
    let c = 0;
    let k = 0;
    while (k < cells.length || c < active.length) {
      const a = c < active.length ? active[c] : undefined;
      if (a) {
        entries.push(a[0]);
        active[c] = a[1] - 1 > 0 ? [a[0], a[1] - 1] : undefined;
        c++;
        continue;
      }
      if (k >= cells.length) {
        if (c < active.length) {
          entries.push(undefined);
          c++;
          continue;
        }
        break;
      }
      const spec = cells[k++];
      const rs = Math.max(1, spec.rowspan);
      const cs = Math.max(1, spec.colspan);
      const cid = id(r, c);
      cellText.set(cid, spec.text);
      if (spec.heading) headings.add(cid);
      meta.set(cid, { row: r, col: c, rowspan: rs, colspan: cs });
      while (active.length < c + cs) active.push(undefined);
      for (let o = 0; o < cs; o++) {
        entries.push(cid);
        active[c + o] = rs > 1 ? [cid, rs - 1] : undefined;
      }
      c += cs;
    }
    occ.push(entries);
  });
  while (active.some((a) => a !== undefined)) {
    const entries: (CellId | undefined)[] = [];
    active.forEach((a, c) => {
      if (!a) return entries.push(undefined);
      entries.push(a[0]);
      active[c] = a[1] - 1 > 0 ? [a[0], a[1] - 1] : undefined;
    });
    occ.push(entries);
  }
  if (cellText.size === 0) return undefined;
  let width = 0;
  for (const row of occ) row.forEach((v, i) => v !== undefined && (width = Math.max(width, i + 1)));
  if (width === 0) return undefined;
  for (const row of occ) {
    while (row.length < width) row.push(undefined);
    row.length = width;
  }
  return { cellText, headings, ...neighbours(occ, meta, [...cellText.keys()], width) };
}

/** The heading cells reached walking up (or left) from a cell; else the cells where the walk ends. */
export function headingWalk(t: TableGraph, start: CellId, rel: Map<CellId, Set<CellId>>): Set<CellId> {
  const heads = new Set<CellId>();
  const ends = new Set<CellId>();
  const visited = new Set<CellId>();
  const todo = [start];
  while (todo.length) {
    const cur = todo.pop()!;
    if (visited.has(cur)) continue;
    visited.add(cur);
    if (t.headings.has(cur)) heads.add(cur);
    const next = rel.get(cur);
    if (!next || next.size === 0) ends.add(cur);
    else todo.push(...next);
  }
  heads.delete(start);
  ends.delete(start);
  return heads.size ? heads : ends;
}

/** Rows of cell strings from one block of `|` lines (separator and pure-format lines dropped). */
function markdownRows(lines: string[]): string[][] {
  const sep = lines.findIndex((l) => {
    const c = l.replace(/\|/g, '').trim();
    return c.length > 0 && /^[- :]+$/.test(c);
  });
  const out: string[][] = [];
  lines.forEach((line, i) => {
    if (i === sep) return;
    if (line.trim() && /^[- :|]+$/.test(line)) return;
    let cells = line.split('|').map((c) => c.trim());
    if (cells.length && cells[0] === '') cells = cells.slice(1);
    if (cells.length && cells[cells.length - 1] === '') cells = cells.slice(0, -1);
    if (cells.length) out.push(cells);
  });
  return out;
}

export function markdownTables(md: string): TableGraph[] {
  const lines = md.trim().split('\n');
  const out: TableGraph[] = [];
  let block: string[] | undefined;
  const flush = () => {
    if (block && block.length >= 2) {
      const rows = markdownRows(block);
      const t = rows.length
        ? buildTable(
            rows.map((row, r) => row.map((text, c) => ({ text, rowspan: 1, colspan: 1, heading: r === 0 || c === 0 }))),
          )
        : undefined;
      if (t) out.push(t);
    }
    block = undefined;
  };
  for (const line of lines) {
    if (line.includes('|')) (block ??= []).push(line);
    else flush();
  }
  flush();
  return out;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };
function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (all, e: string) => {
    if (e[0] === '#') {
      const cp = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(cp) && cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : all;
    }
    return ENTITIES[e.toLowerCase()] ?? all;
  });
}

function spanOf(attrs: string, name: string): number {
  const m = new RegExp(`${name}\\s*=\\s*["']?(\\d+)`, 'i').exec(attrs);
  const n = m ? parseInt(m[1], 10) : 1;
  return n > 0 ? n : 1;
}

export function htmlTables(html: string): TableGraph[] {
  const out: TableGraph[] = [];
  for (const tm of html.matchAll(/<table\b[^>]*>([\s\S]*?)<\/table>/gi)) {
    const body = tm[1];
    const rows: CellSpec[][] = [];
    // Which parts of the table are inside <thead>.
    const theads: [number, number][] = [...body.matchAll(/<thead\b[^>]*>[\s\S]*?<\/thead>/gi)].map((m) => [
      m.index!,
      m.index! + m[0].length,
    ]);
    for (const rm of body.matchAll(/<tr\b[^>]*>([\s\S]*?)(?=<tr\b|<\/tr>|<\/tbody>|<\/thead>|$)/gi)) {
      const inHead = theads.some(([a, b]) => rm.index! >= a && rm.index! < b);
      const cells: CellSpec[] = [];
      for (const cm of rm[1].matchAll(/<(t[hd])\b([^>]*)>([\s\S]*?)(?=<t[hd]\b|<\/tr>|$)/gi)) {
        const inner = cm[3].replace(/<\/t[hd]>\s*$/i, '').replace(/<br\s*\/?>/gi, '\n');
        const text = decodeEntities(inner.replace(/<[^>]*>/g, '')).trim();
        cells.push({
          text,
          rowspan: spanOf(cm[2], 'rowspan'),
          colspan: spanOf(cm[2], 'colspan'),
          heading: cm[1].toLowerCase() === 'th' || inHead,
        });
      }
      rows.push(cells);
    }
    if (rows.length === 0) continue;
    const t = buildTable(rows);
    if (t) out.push(t);
  }
  return out;
}
