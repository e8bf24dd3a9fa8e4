/**
 * Scores one converter's Markdown against the set's ground truth: formulas (display and inline,
 * exact and normalized match, eval/metrics/latex.ts) and tables (cell F1 and TEDS,
 * eval/metrics/tables.ts).
 */
import { formulasOf, matchFormulas, type FormulaMatch } from '../../metrics/latex';
import { parseMarkdown } from '../../metrics/markdown';
import { cellF1, meanTeds } from '../../metrics/tables';
import type { Table } from '../../metrics/table';

export interface SetScore {
  display: FormulaMatch;
  inline: FormulaMatch;
  /** Sum of per-document table cell F1 (documents with tables). */
  cellF1Sum: number;
  tableDocs: number;
  tedsSum: number;
  tables: number;
}

export function emptyScore(): SetScore {
  return {
    display: { gt: 0, exact: 0, normalized: 0 },
    inline: { gt: 0, exact: 0, normalized: 0 },
    cellF1Sum: 0,
    tableDocs: 0,
    tedsSum: 0,
    tables: 0,
  };
}

function tablesOf(md: string): Table[] {
  return parseMarkdown(md)
    .filter((b) => b.kind === 'table' && b.table)
    .map((b) => b.table!);
}

/** Adds one document's comparison into `acc`. */
export function scoreInto(acc: SetScore, truth: string, output: string): void {
  const g = formulasOf(truth);
  const p = formulasOf(output);
  const add = (a: FormulaMatch, b: FormulaMatch) => {
    a.gt += b.gt;
    a.exact += b.exact;
    a.normalized += b.normalized;
  };
  add(acc.display, matchFormulas(g.display, p.display));
  add(acc.inline, matchFormulas(g.inline, p.inline));
  const gt = tablesOf(truth);
  if (gt.length) {
    const pred = tablesOf(output);
    acc.cellF1Sum += cellF1(gt, pred).f1;
    acc.tableDocs++;
    acc.tedsSum += (meanTeds(gt, pred) ?? 0) * gt.length;
    acc.tables += gt.length;
  }
}

export function rates(s: SetScore) {
  const r = (m: FormulaMatch, k: 'exact' | 'normalized') => (m.gt ? m[k] / m.gt : NaN);
  return {
    displayExact: r(s.display, 'exact'),
    displayNorm: r(s.display, 'normalized'),
    inlineExact: r(s.inline, 'exact'),
    inlineNorm: r(s.inline, 'normalized'),
    cellF1: s.tableDocs ? s.cellF1Sum / s.tableDocs : NaN,
    teds: s.tables ? s.tedsSum / s.tables : NaN,
  };
}
