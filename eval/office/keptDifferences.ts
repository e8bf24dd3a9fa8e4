/**
 * The office set's second NED column: the same comparison with the differences Folio keeps on
 * purpose (docs/formats.md, "Differences from Docling kept on purpose") taken out, each by a rule
 * named here and printed under the table, so the first column stays the plain measure and
 * nothing is left out silently:
 *
 * - `spans`: a table cell that spans rows or columns is written once in Folio's HTML table;
 *   Docling's pipe table repeats its text in every cell it covers. Folio's spanning cells are
 *   repeated the same way for this column (the words are the same; only the count differs).
 * - `chart kind`: both write a chart's class ("Bar chart") as a paragraph after its picture; Folio
 *   names the kind its chart part's plot gives, where Docling's PowerPoint reader says "Other
 *   chart" for a chart python-pptx cannot type (a 3-D bar chart). Where the two sides' class
 *   lines differ, they are taken out of both sides; where they agree, nothing is touched.
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
  const isKind = (b: Block, prev: Block | undefined) =>
    b.kind === 'paragraph' && CHART_KIND.test(b.text.trim()) && prev?.kind === 'picture';
  const kindLines = (blocks: Block[]) => blocks.filter((b, i) => isKind(b, blocks[i - 1])).map((b) => b.text.trim());
  const gtBlocks = parseOutput(gtMarkdown, 'markdown');
  const outBlocks = parseOutput(outMarkdown, 'markdown');
  const kindsDiffer = kindLines(gtBlocks).join('\n') !== kindLines(outBlocks).join('\n');
  if (kindsDiffer) applied.add('chart kind');
  const dropKinds = (blocks: Block[]) => (kindsDiffer ? blocks.filter((b, i) => !isKind(b, blocks[i - 1])) : blocks);
  const gt = dropKinds(gtBlocks);
  const out = dropKinds(outBlocks).map((b) => {
    if (b.kind !== 'table' || !b.table) return b;
    if (!b.table.rows.some((r) => r.some((c) => c.rowspan > 1 || c.colspan > 1))) return b;
    applied.add('spans');
    return { ...b, text: spannedTableText(b.table) };
  });
  return { gt: comparableText(gt), out: comparableText(out), applied: KEPT_RULES.filter((r) => applied.has(r)) };
}
