/**
 * Stage 0b, contents: a table of contents (../toc/detect.ts) is one document index, found before
 * the formula and line stages read its leader dots and page numbers. A table the tables stage
 * found over the same lines gives way: the index is the stronger reading of them.
 */
import { findContents } from '../toc/detect';
import type { PageState } from './state';

export function findContentsIndex(state: PageState): PageState {
  let blocks: ReturnType<typeof findContents>;
  try {
    blocks = findContents(state.input.content.spans);
  } catch (e) {
    return { ...state, warnings: [...state.warnings, `contents detection failed: ${(e as Error).message}`] };
  }
  if (!blocks.length) return state;
  const taken = new Set(blocks.flatMap((b) => b.spanIndices));
  const tables = state.tables.filter((t) => !t.spanIndices.some((i) => taken.has(i)));
  for (const b of blocks) tables.push({ bbox: b.bbox, rows: b.rows, spanIndices: b.spanIndices, index: true });
  return { ...state, tables };
}
