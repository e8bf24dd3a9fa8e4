/**
 * Table cell F1 against Markdown ground truth. Ground-truth tables are the pipe tables of the
 * `.md` (docling and the source readers repeat a merged cell's text in every cell it covers);
 * detected OTSL is expanded the same way. A cell matches when its (column, normalized text) is
 * on the other side, counted as multisets over the document: row positions are left out because
 * a table broken over pages is one table in the ground truth and one per page in a PDF. Empty
 * cells are not counted.
 */
import type { OtslCell } from '../../server/model/items';

export type TextGrid = string[][];

const norm = (s: string) =>
  s
    .replace(/\*\*|__/g, '')
    .replace(/\\([\\`*_{}[\]()#+\-.!|$~<>])/g, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();

/** Pipe tables of a Markdown file, as rows of cell texts. */
export function markdownTables(md: string): TextGrid[] {
  const out: TextGrid[] = [];
  let cur: TextGrid | undefined;
  for (const line of md.split('\n')) {
    const t = line.trim();
    if (t.startsWith('|') && t.endsWith('|') && t.length > 1) {
      const cells = t
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((c) => c.trim());
      if (cells.every((c) => /^:?-+:?$/.test(c))) continue; // delimiter row
      (cur ??= []).push(cells.map(norm));
    } else if (cur) {
      out.push(cur);
      cur = undefined;
    }
  }
  if (cur) out.push(cur);
  return out;
}

/** OTSL rows → text grid, merged cells repeating their text. */
export function expandOtsl(rows: OtslCell[][]): TextGrid {
  const g: TextGrid = rows.map((r) => r.map(() => ''));
  rows.forEach((r, ri) =>
    r.forEach((c, ci) => {
      if (c.tag === 'lcel') g[ri]![ci] = g[ri]![ci - 1] ?? '';
      else if (c.tag === 'ucel' || c.tag === 'xcel') g[ri]![ci] = g[ri - 1]?.[ci] ?? '';
      else g[ri]![ci] = norm(c.text);
    }),
  );
  return g;
}

function keys(tables: TextGrid[]): Map<string, number> {
  const m = new Map<string, number>();
  tables.forEach((t) =>
    t.forEach((r) =>
      r.forEach((c, ci) => {
        if (!c) return;
        const k = `${ci}|${c}`;
        m.set(k, (m.get(k) ?? 0) + 1);
      }),
    ),
  );
  return m;
}

export interface CellScore {
  tp: number;
  pred: number;
  gt: number;
}

export function cellScore(pred: TextGrid[], gt: TextGrid[]): CellScore {
  const p = keys(pred);
  const g = keys(gt);
  let tp = 0;
  for (const [k, n] of p) tp += Math.min(n, g.get(k) ?? 0);
  const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  return { tp, pred: sum(p), gt: sum(g) };
}

export function f1(s: CellScore): { precision: number; recall: number; f1: number } {
  const precision = s.pred ? s.tp / s.pred : s.gt ? 0 : 1;
  const recall = s.gt ? s.tp / s.gt : 1;
  return { precision, recall, f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0 };
}
