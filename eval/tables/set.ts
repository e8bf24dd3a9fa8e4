/**
 * The table-only set (issue 31): pages with tables and their ground-truth tables, from two
 * sources —
 *
 * - `person`: `eval/tables/tables.jsonl`, one page a line (`id`, `pdf` as in the real-world set:
 *   `corpus/<path>` or `debian/<key>`, `page`, `tables`: the page's tables as HTML with
 *   `colspan`/`rowspan` and `<th>` header cells, `checked: "verified"`), written while looking at
 *   the rendered page;
 * - `docling`: every table of the Docling ground-truth JSON beside a PDF in the corpus's
 *   `docling/pdf/` (`tables[].data.table_cells` with row/column offsets and spans, `prov[0].page_no`),
 *   found on disk, one entry per page that has tables.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseHtmlTable, type Table, type TableCell } from '../metrics/table';

export const TABLES_FILE = 'tables.jsonl';

export interface TablePage {
  id: string;
  /** `corpus/<path>` or `debian/<key>` (see eval/realworld/pages.ts). */
  pdf: string;
  page: number;
  source: 'person' | 'docling';
  tables: Table[];
}

export class TableSetError extends Error {}

export function tableSetDir(repo: string): string {
  return join(repo, 'eval', 'tables');
}

/** The person-written pages of `tables.jsonl`, validated; a bad line is an error naming it. */
export function readPersonTables(file: string): TablePage[] {
  const out: TablePage[] = [];
  const ids = new Set<string>();
  for (const [i, line] of readFileSync(file, 'utf8').split('\n').entries()) {
    if (!line.trim()) continue;
    const where = `${file}:${i + 1}`;
    let o: Record<string, unknown>;
    try {
      o = JSON.parse(line) as Record<string, unknown>;
    } catch (e) {
      throw new TableSetError(`${where}: not JSON (${(e as Error).message})`);
    }
    const { id, pdf, page, tables, checked } = o;
    if (typeof id !== 'string' || !id) throw new TableSetError(`${where}: "id" must be a non-empty string`);
    if (ids.has(id)) throw new TableSetError(`${where}: duplicate id ${id}`);
    ids.add(id);
    if (typeof pdf !== 'string' || !/^(corpus|debian)\/[^\0]+$/.test(pdf) || pdf.split('/').includes('..'))
      throw new TableSetError(`${where}: "pdf" must be corpus/<path> or debian/<key> without ".."`);
    if (typeof page !== 'number' || !Number.isInteger(page) || page < 1)
      throw new TableSetError(`${where}: "page" must be a positive integer`);
    if (checked !== 'verified') throw new TableSetError(`${where}: ground truth must be "checked": "verified"`);
    if (!Array.isArray(tables) || tables.length === 0 || !tables.every((t) => typeof t === 'string'))
      throw new TableSetError(`${where}: "tables" must be a non-empty list of HTML tables`);
    const parsed = (tables as string[]).map(parseHtmlTable);
    parsed.forEach((t, k) => {
      if (t.rows.length === 0) throw new TableSetError(`${where}: table ${k + 1} has no rows`);
    });
    out.push({ id, pdf, page, source: 'person', tables: parsed });
  }
  return out;
}

interface DoclingCell {
  text: string;
  row_span: number;
  col_span: number;
  start_row_offset_idx: number;
  start_col_offset_idx: number;
  column_header?: boolean;
}

interface DoclingTable {
  prov?: { page_no: number }[];
  data?: { num_rows: number; num_cols: number; table_cells: DoclingCell[] };
}

/**
 * A Docling table's cells → rows of cells in reading order, each spanning cell once at its
 * top-left position; grid positions no cell covers become empty 1×1 cells (as Docling's own
 * HTML export writes them).
 */
export function doclingTable(t: DoclingTable): Table | undefined {
  const d = t.data;
  if (!d || d.num_rows < 1 || d.num_cols < 1) return undefined;
  const covered = Array.from({ length: d.num_rows }, () => new Array<boolean>(d.num_cols).fill(false));
  const at = new Map<string, DoclingCell>();
  for (const c of d.table_cells) {
    const r0 = c.start_row_offset_idx;
    const c0 = c.start_col_offset_idx;
    if (r0 < 0 || c0 < 0 || r0 >= d.num_rows || c0 >= d.num_cols || covered[r0][c0]) continue;
    at.set(`${r0},${c0}`, c);
    for (let r = r0; r < Math.min(d.num_rows, r0 + Math.max(1, c.row_span)); r++)
      for (let k = c0; k < Math.min(d.num_cols, c0 + Math.max(1, c.col_span)); k++) covered[r][k] = true;
  }
  const rows: TableCell[][] = [];
  for (let r = 0; r < d.num_rows; r++) {
    const row: TableCell[] = [];
    for (let k = 0; k < d.num_cols; k++) {
      const c = at.get(`${r},${k}`);
      if (c)
        row.push({
          text: c.text,
          rowspan: Math.max(1, c.row_span),
          colspan: Math.max(1, c.col_span),
          header: c.column_header === true,
        });
      else if (!covered[r][k]) row.push({ text: '', rowspan: 1, colspan: 1, header: false });
    }
    rows.push(row);
  }
  return { rows };
}

/** Every page with tables in the Docling ground truth under `<corpus>/docling/pdf/`. */
export function readDoclingTables(corpusRoot: string): TablePage[] {
  const dir = join(corpusRoot, 'docling', 'pdf');
  if (!existsSync(dir)) return [];
  const out: TablePage[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (!name.endsWith('.json') || name.endsWith('.pages.meta.json')) continue;
    const stem = name.slice(0, -'.json'.length);
    if (!existsSync(join(dir, `${stem}.pdf`))) continue;
    const doc = JSON.parse(readFileSync(join(dir, name), 'utf8')) as { tables?: DoclingTable[] };
    if (!Array.isArray(doc.tables)) continue;
    const byPage = new Map<number, Table[]>();
    for (const t of doc.tables) {
      const page = t.prov?.[0]?.page_no;
      const table = doclingTable(t);
      if (!page || !table) continue;
      byPage.set(page, [...(byPage.get(page) ?? []), table]);
    }
    for (const [page, tables] of [...byPage].sort((a, b) => a[0] - b[0]))
      out.push({
        id: `docling-${stem}-p${page}`,
        pdf: `corpus/docling/pdf/${stem}.pdf`,
        page,
        source: 'docling',
        tables,
      });
  }
  return out;
}

/** The whole set: person-written pages first, then Docling's. */
export function readTableSet(repo: string, corpusRoot: string): TablePage[] {
  return [...readPersonTables(join(tableSetDir(repo), TABLES_FILE)), ...readDoclingTables(corpusRoot)];
}
