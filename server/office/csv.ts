/**
 * CSV → one table, as Docling reads it: the delimiter found from the first lines (`,` `;` tab `|`,
 * the one that splits them most consistently), RFC 4180 quoting, the first row as the header;
 * rows shorter than the header are padded, longer ones widen the table. Past the cell limit the
 * rest is left out with a warning.
 */
import type { DocItem, OtslCell } from '../model/items';
import { DEFAULT_MAX_CELLS } from './xlsx';
import { LETTER, type ReadOptions, type StructuredDocument } from './types';

/** Rows of fields; quotes may hold delimiters, doubled quotes and line breaks. */
export function parseCsv(text: string, delim: string, maxCells = Infinity): { rows: string[][]; truncated: boolean } {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let cells = 0;
  const endField = () => {
    row.push(field);
    field = '';
    cells++;
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += ch;
    } else if (ch === '"' && field === '') quoted = true;
    else if (ch === delim) endField();
    else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      endField();
      rows.push(row);
      row = [];
      if (cells >= maxCells) return { rows, truncated: i < text.length - 1 };
    } else field += ch;
  }
  if (field !== '' || row.length > 0) {
    endField();
    rows.push(row);
  }
  return { rows, truncated: false };
}

function sniff(text: string): string {
  const sample = text
    .split(/\r?\n/)
    .filter((l) => l.length > 0)
    .slice(0, 20)
    .join('\n');
  let best = ',';
  let bestScore = -1;
  for (const d of [',', ';', '\t', '|']) {
    const counts = parseCsv(sample, d).rows.map((r) => r.length);
    if (counts.length === 0) continue;
    const first = counts[0];
    if (first < 2) continue;
    const consistent = counts.filter((c) => c === first).length / counts.length;
    const score = consistent * 1000 + first;
    if (score > bestScore) {
      bestScore = score;
      best = d;
    }
  }
  return best;
}

export function readCsv(text: string, opts: ReadOptions = {}): StructuredDocument {
  const body = text.replace(/^\ufeff/, '');
  const maxCells = opts.maxCells ?? DEFAULT_MAX_CELLS;
  const { rows, truncated } = parseCsv(body, sniff(body), maxCells);
  const filled = rows.filter((r) => r.some((c) => c.trim() !== ''));
  const width = Math.max(0, ...filled.map((r) => r.length));
  const table: OtslCell[][] = filled.map((r, i) =>
    Array.from({ length: width }, (_, c) => {
      const t = (r[c] ?? '').replace(/\s+/g, ' ').trim();
      return { tag: t ? (i === 0 ? 'ched' : 'fcel') : 'ecel', text: t } as OtslCell;
    }),
  );
  const items: DocItem[] = table.length ? [{ cls: 'table', text: '', table }] : [];
  const warnings = truncated
    ? [`more than ${maxCells} cells: the rows after the first ${filled.length} were left out`]
    : [];
  return { format: 'csv', pages: [{ page: 1, ...LETTER, items }], warnings };
}
