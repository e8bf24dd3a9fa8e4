/**
 * The bridge to table detection (server/layout/tables.ts, owned by the tables engineer): one
 * place to adapt if its interface moves. Tables' spans leave the paragraph flow.
 */
import type { PageContent } from '../../model/content';
import { detectTables, type DetectedTable } from './index';

export type TableFound = DetectedTable;

export function findTables(content: PageContent): TableFound[] {
  return detectTables(content);
}
