/**
 * Stage 0, tables: tables drawn with rules, with horizontal rules only, or set by alignment
 * (server/layout/tables), found on the whole page before anything else reads its text. Table
 * detection must never cost the page: on failure the text flows as lines and the page's warnings
 * say why.
 */
import { detectTables } from '../tables/index';
import type { PageState } from './state';

export function findTables(state: PageState): PageState {
  try {
    const textColumns: PageState['textColumns'] = [];
    return { ...state, tables: detectTables(state.input.content, { textColumns }), textColumns };
  } catch (e) {
    return { ...state, tables: [], warnings: [...state.warnings, `table detection failed: ${(e as Error).message}`] };
  }
}
