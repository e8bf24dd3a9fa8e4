/**
 * The office set's second NED column: the same comparison with the differences Folio keeps on
 * purpose (docs/formats.md, "Differences from Docling kept on purpose") taken out, each by a rule
 * named here and printed under the table, so the first column stays the plain measure and
 * nothing is left out silently:
 *
 * - `spans`: a table cell that spans rows or columns is written once in Folio's HTML table;
 *   Docling's pipe table repeats its text in every cell it covers. Folio's spanning cells are
 *   repeated the same way for this column (the words are the same; only the count differs).
 * - `chart kind`: Docling writes a chart's predicted class ("Bar chart") as a paragraph after its
 *   picture; Folio writes the chart's title and data but no class. That one paragraph right after
 *   a picture is taken out of Docling's side.
 */
import { comparableText, parseOutput } from '../metrics/score';
import type { Block } from '../metrics/markdown';
import type { Table } from '../metrics/table';

export const KEPT_RULES = ['spans', 'chart kind'] as const;
export type KeptRule = (typeof KEPT_RULES)[number];

/** Docling's chart classes, humanized as its Markdown meta serializer writes them. */
const CHART_KIND = /^(Bar|Line|Pie|Scatter|Area|Stacked bar|Flow|Other) chart$/;

/** A table's text with every spanning cell's text repeated over the grid positions it covers. */
export function spannedTableText(t: Table): string {
  const grid: string[][] = [];
  t.rows.forEach((row, r) => {
    grid[r] ??= [];
    let c = 0;
    for (const cell of row) {
      while (grid[r][c] !== undefined) c++;
      const rs = Math.max(1, Math.min(1000, cell.rowspan || 1));
      const cs = Math.max(1, Math.min(1000, cell.colspan || 1));
      for (let i = 0; i < rs && r + i < t.rows.length; i++) {
        grid[r + i] ??= [];
        for (let j = 0; j < cs; j++) grid[r + i][c + j] = cell.text;
      }
      c += cs;
    }
  });
  return grid.map((r) => Array.from(r, (x) => x ?? '').join(' ')).join(' ');
}

export interface KeptComparison {
  gt: string;
  out: string;
  /** Which rules changed something in this document. */
  applied: KeptRule[];
}

/** Both sides' comparable text with the kept differences taken out (see the file comment). */
export function withoutKeptDifferences(gtMarkdown: string, outMarkdown: string): KeptComparison {
  const applied = new Set<KeptRule>();
  const gt: Block[] = [];
  for (const b of parseOutput(gtMarkdown, 'markdown')) {
    if (b.kind === 'paragraph' && CHART_KIND.test(b.text.trim()) && gt[gt.length - 1]?.kind === 'picture') {
      applied.add('chart kind');
      continue;
    }
    gt.push(b);
  }
  const out = parseOutput(outMarkdown, 'markdown').map((b) => {
    if (b.kind !== 'table' || !b.table) return b;
    if (!b.table.rows.some((r) => r.some((c) => c.rowspan > 1 || c.colspan > 1))) return b;
    applied.add('spans');
    return { ...b, text: spannedTableText(b.table) };
  });
  return { gt: comparableText(gt), out: comparableText(out), applied: KEPT_RULES.filter((r) => applied.has(r)) };
}
