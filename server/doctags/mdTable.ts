/**
 * OTSL rows → Markdown table: a GFM pipe table when no cell spans, else an HTML `<table>` with
 * colspan/rowspan (a pipe table cannot express merged cells; docling repeats the text instead,
 * which reads as data that is not there).
 */
import type { OtslCell } from '../model/items';
import { escapeHtml, escapeInline } from './mdEscape';

const MERGE = new Set(['lcel', 'ucel', 'xcel']);

/** Rows padded to the widest row with empty cells (VLM output can be ragged). */
export function rectangular(rows: OtslCell[][]): OtslCell[][] {
  const width = rows.reduce((w, r) => Math.max(w, r.length), 0);
  return rows
    .filter((r) => r.length > 0)
    .map((r) =>
      r.length < width
        ? [...r, ...Array.from({ length: width - r.length }, () => ({ tag: 'ecel' as const, text: '' }))]
        : r,
    );
}

export function hasSpans(rows: OtslCell[][]): boolean {
  return rows.some((r, ri) =>
    r.some((c, ci) => MERGE.has(c.tag) && !(c.tag === 'lcel' && ci === 0) && !(c.tag === 'ucel' && ri === 0)),
  );
}

function pipeCell(text: string): string {
  return escapeInline(text.replace(/\s*\n\s*/g, ' ').trim()).replace(/\|/g, '\\|');
}

function pipeTable(rows: OtslCell[][]): string {
  const line = (r: OtslCell[]) => '| ' + r.map((c) => (MERGE.has(c.tag) ? '' : pipeCell(c.text))).join(' | ') + ' |';
  const out = [line(rows[0]!), '| ' + rows[0]!.map(() => '-').join(' | ') + ' |'];
  for (const r of rows.slice(1)) out.push(line(r));
  return out.join('\n');
}

function htmlTable(rows: OtslCell[][]): string {
  const out = ['<table>'];
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    let tr = '<tr>';
    for (let c = 0; c < row.length; c++) {
      const cell = row[c]!;
      // Merge markers belong to the cell they extend, unless nothing is there to extend.
      if (MERGE.has(cell.tag) && !(cell.tag === 'lcel' && c === 0) && !(cell.tag === 'ucel' && r === 0)) continue;
      let colspan = 1;
      while (c + colspan < row.length && row[c + colspan]!.tag === 'lcel') colspan++;
      let rowspan = 1;
      while (r + rowspan < rows.length && rows[r + rowspan]![c]?.tag === 'ucel') rowspan++;
      const tag = cell.tag === 'ched' || cell.tag === 'rhed' ? 'th' : 'td';
      const attrs = (colspan > 1 ? ` colspan="${colspan}"` : '') + (rowspan > 1 ? ` rowspan="${rowspan}"` : '');
      const text = MERGE.has(cell.tag) ? '' : escapeHtml(cell.text.replace(/\s*\n\s*/g, ' ').trim());
      tr += `<${tag}${attrs}>${text}</${tag}>`;
    }
    out.push(tr + '</tr>');
  }
  out.push('</table>');
  return out.join('\n');
}

/** Markdown for a table's cells; '' when it has none. */
export function tableToMarkdown(rows: OtslCell[][]): string {
  const rect = rectangular(rows);
  if (rect.length === 0 || rect[0]!.length === 0) return '';
  return hasSpans(rect) ? htmlTable(rect) : pipeTable(rect);
}
