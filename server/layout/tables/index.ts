/**
 * Table detection for the pipeline engine. Two sources, in this order:
 * 1. ruling lines forming a grid (rules.ts), merged cells where a rule is missing;
 * 2. for the text left over, column alignment over ≥ 3 lines with ≥ 2 gaps (align.ts).
 * Both produce a grid that grid.ts fills with the page's spans and turns into OTSL.
 */
import type { BBox } from '../../../common/protocol';
import type { OtslCell } from '../../model/items';
import type { PageContent } from '../../model/content';
import { fillGrid, markHeader, pruneEmpty, type Grid, type GridTable } from './grid';
import { ruledGrids } from './rules';
import { alignedGrids, forcedGrid } from './align';
import type { TextColumns } from './notTable';

export type { TextColumns } from './notTable';
import { hruleTables } from './hrules';
import { refineRuledGrid } from './rows';
import { leaderTables } from './leaders';

export interface DetectedTable {
  /** Box in points, top-left origin. */
  bbox: BBox;
  /** OTSL rows (every row the same length). */
  rows: OtslCell[][];
  /** Indices into `content.spans` of the text spans the table consumed. */
  spanIndices: number[];
  /**
   * Found by column alignment alone (no rule drew it): the weakest evidence, which the content
   * stream's order may overrule (layout/order/streamEvidence `isJustifiedProse`).
   */
  alignedOnly?: boolean;
  /** A table of contents (layout/toc): written as a document index, not a table. */
  index?: boolean;
}

function isNumeric(text: string): boolean {
  return /^[\s\d.,:%+\-–−()$€£]*\d[\s\d.,:%+\-–−()$€£]*$/.test(text);
}

/** A ruled grid is a table only with text in at least two cells of two rows. */
function credible(t: GridTable): boolean {
  if (t.nonEmptyCells < 3) return false;
  const rowsWithText = t.rows.filter((r) => r.some((c) => c.tag === 'fcel')).length;
  return rowsWithText >= 2;
}

function toTable(t: GridTable, ruled: boolean): DetectedTable | undefined {
  const rows = pruneEmpty(t.rows);
  if (rows.length < 2 || rows[0]!.length < 2) return undefined;
  // docling marks the first row as column headers; follow it unless that row is plain data
  // (all numbers) in a table without rules or bold to say otherwise. A header cell that spans
  // rows makes those rows header rows too.
  const first = rows[0]!.filter((c) => c.tag === 'fcel');
  const dataLike = first.length > 0 && first.every((c) => isNumeric(c.text));
  if (ruled || t.firstRowBold || !dataLike) markHeader(rows, t.headerRows);
  return { bbox: t.bbox, rows, spanIndices: t.spanIndices };
}

export interface DetectOptions {
  /**
   * The content is known to be one table (a region the user marked as a table): when neither
   * source finds one, the whole content becomes one table, rows from lines and columns from
   * the white gaps through them.
   */
  force?: boolean;
  /**
   * Receives the aligned blocks that are text set in columns, not tables (newspaper columns,
   * stat blocks, a numbered list flowed into columns): the reading order reads them column by column.
   */
  textColumns?: TextColumns[];
}

export function detectTables(content: PageContent, opts: DetectOptions = {}): DetectedTable[] {
  const out: DetectedTable[] = [];
  const taken = new Set<number>();
  const take = (grids: Grid[], ruled: boolean) => {
    for (const g of grids) {
      // A table inside another table's cell (nested tables) is that cell's text.
      const inside = out.some(
        (t) =>
          g.xs[0]! >= t.bbox.x0 - 1 &&
          g.xs[g.xs.length - 1]! <= t.bbox.x1 + 1 &&
          g.ys[0]! >= t.bbox.y0 - 1 &&
          g.ys[g.ys.length - 1]! <= t.bbox.y1 + 1,
      );
      if (inside) continue;
      const filled = fillGrid(ruled ? refineRuledGrid(g, content.spans, taken) : g, content.spans, taken);
      if (!credible(filled)) continue;
      const table = toTable(filled, ruled);
      if (!table) continue;
      if (!ruled) table.alignedOnly = true;
      for (const i of table.spanIndices) taken.add(i);
      out.push(table);
    }
  };
  try {
    // Largest frames first, so an outer table claims its nested tables' text.
    const area = (g: Grid) => (g.xs[g.xs.length - 1]! - g.xs[0]!) * (g.ys[g.ys.length - 1]! - g.ys[0]!);
    take(
      ruledGrids(content.rules).sort((a, b) => area(b) - area(a)),
      true,
    );
    // Rows joined by leader dots ("Item . . . . 0.47"): the dots are the column gap, so the
    // rows are read before the rule and alignment sources split them elsewhere. No header row.
    for (const t of leaderTables(content.spans, taken)) {
      for (const i of t.spanIndices) taken.add(i);
      out.push(t);
    }
    // Tables with horizontal rules only (booktabs, a rule under the header row).
    for (const t of hruleTables(content.spans, content.rules, taken, content.width)) {
      const rows = pruneEmpty(t.rows);
      if (rows.length < 2 || rows[0]!.length < 2) continue;
      markHeader(rows, Math.max(1, t.headerRows));
      out.push({ bbox: t.bbox, rows, spanIndices: t.spanIndices });
    }
    take(alignedGrids(content.spans, taken, content.width, opts.textColumns), false);
  } catch {
    // Table detection is an enhancement: on any surprise the page keeps its text as lines.
    return out;
  }
  if (opts.force && out.length === 0) {
    try {
      const g = forcedGrid(content.spans, content.width);
      if (g) {
        const filled = fillGrid(g, content.spans, new Set());
        const rows = pruneEmpty(filled.rows);
        if (rows.length > 0) {
          markHeader(rows, 1);
          out.push({ bbox: filled.bbox, rows, spanIndices: filled.spanIndices });
        }
      }
    } catch {
      return out;
    }
  }
  return out.sort((a, b) => a.bbox.y0 - b.bbox.y0 || a.bbox.x0 - b.bbox.x0);
}
