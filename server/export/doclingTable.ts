/**
 * OTSL rows ⇄ docling-core's `TableData` (cells with row/column spans, the dense grid). OTSL
 * writes a merged cell once, at its top-left, and marks the positions it covers with `lcel`
 * (covered from the left), `ucel` (from above) and `xcel` (both); docling-core stores each cell
 * once with its start/end offsets and repeats it in `grid` at every position it covers.
 */
import type { TableCell, TableData } from '@docling/docling-core';
import type { OtslCell, OtslTag } from '../model/items';
import { rectangular } from '../doctags/mdTable';

const MERGE = new Set<OtslTag>(['lcel', 'ucel', 'xcel']);

export function otslToTableData(rows: OtslCell[][]): TableData {
  const rect = rectangular(rows);
  const numRows = rect.length;
  const numCols = numRows > 0 ? rect[0]!.length : 0;
  const cover: (TableCell | undefined)[][] = rect.map((r) => r.map(() => undefined));
  const cells: TableCell[] = [];
  for (let r = 0; r < numRows; r++) {
    for (let c = 0; c < numCols; c++) {
      if (cover[r]![c]) continue;
      // Every position not yet covered starts a cell: a well-formed merge marker is always covered
      // by the cell it extends (rows are scanned top-down, left to right); one with nothing to
      // extend (malformed OTSL) becomes an empty cell of its own.
      const tag = rect[r]![c]!.tag;
      let colSpan = 1;
      while (c + colSpan < numCols && rect[r]![c + colSpan]!.tag === 'lcel' && !cover[r]![c + colSpan]) colSpan++;
      let rowSpan = 1;
      while (r + rowSpan < numRows && rect[r + rowSpan]![c]!.tag === 'ucel' && !cover[r + rowSpan]![c]) rowSpan++;
      const cell: TableCell = {
        row_span: rowSpan,
        col_span: colSpan,
        start_row_offset_idx: r,
        end_row_offset_idx: r + rowSpan,
        start_col_offset_idx: c,
        end_col_offset_idx: c + colSpan,
        text: MERGE.has(tag) ? '' : rect[r]![c]!.text,
        column_header: tag === 'ched',
        row_header: tag === 'rhed',
        row_section: tag === 'srow',
      };
      cells.push(cell);
      for (let rr = r; rr < r + rowSpan; rr++) for (let cc = c; cc < c + colSpan; cc++) cover[rr]![cc] ??= cell;
    }
  }
  return { table_cells: cells, num_rows: numRows, num_cols: numCols, grid: cover as TableCell[][] };
}

/** The inverse: `TableData` → OTSL rows (what docling-core's DocTags export writes). */
export function tableDataToOtsl(data: TableData): OtslCell[][] {
  const numRows = data.num_rows ?? 0;
  const numCols = data.num_cols ?? 0;
  const at: (TableCell | undefined)[][] = Array.from({ length: numRows }, () =>
    Array.from({ length: numCols }, () => undefined),
  );
  for (const cell of data.table_cells ?? []) {
    for (let r = cell.start_row_offset_idx; r < Math.min(numRows, cell.end_row_offset_idx); r++) {
      for (let c = cell.start_col_offset_idx; c < Math.min(numCols, cell.end_col_offset_idx); c++) at[r]![c] ??= cell;
    }
  }
  return at.map((row, r) =>
    row.map((cell, c): OtslCell => {
      if (!cell) return { tag: 'ecel', text: '' };
      const top = cell.start_row_offset_idx === r;
      const left = cell.start_col_offset_idx === c;
      if (!top && !left) return { tag: 'xcel', text: '' };
      if (!left) return { tag: 'lcel', text: '' };
      if (!top) return { tag: 'ucel', text: '' };
      const tag: OtslTag = cell.column_header
        ? 'ched'
        : cell.row_header
          ? 'rhed'
          : cell.row_section
            ? 'srow'
            : cell.text
              ? 'fcel'
              : 'ecel';
      return { tag, text: cell.text };
    }),
  );
}
