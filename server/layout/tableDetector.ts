/**
 * The bridge to table detection (server/layout/tables.ts, owned by the tables engineer).
 * Until that module exists this finds no tables, so tables' text flows as ordinary lines.
 */
import type { BBox } from '../protocol';
import type { OtslCell } from '../doctags/types';
import type { PageContent } from '../pipeline/types';

export interface TableFound {
  bbox: BBox;
  rows: OtslCell[][];
  /** Indices into content.spans the table consumed. */
  spanIndices: number[];
}

export function findTables(_content: PageContent): TableFound[] {
  return [];
}
