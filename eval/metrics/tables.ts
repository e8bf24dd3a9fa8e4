/**
 * Table metrics: cell-content F1 over all cells of a document, and TEDS (tree-edit-distance
 * similarity, Zhong et al. 2020) per ground-truth table against its best-matching predicted
 * table. TEDS = 1 − TED(gt, pred) / max(|gt|, |pred|), trees table → row → cell, a cell's
 * relabel cost is 1 when spans differ, else the normalized edit distance of the texts.
 * `meanTeds` and `cellF1` compare tables with spans expanded (see `expandSpans`), because the
 * ground truth here repeats spanned text; `teds` itself compares the tables as given.
 */
import { normalizedEditDistance } from './levenshtein';
import { prf, type Prf } from './match';
import { matchKey } from './normalize';
import { expandSpans, type Table } from './table';
import { treeEditDistance, type TreeNode } from './treeEdit';

interface CellNode extends TreeNode {
  text?: string;
  span?: string;
}

export function tableTree(t: Table): TreeNode {
  return {
    label: 'table',
    children: t.rows.map((r) => ({
      label: 'tr',
      children: r.map((c): CellNode => ({
        label: 'td',
        children: [],
        text: matchKey(c.text),
        span: `${c.rowspan}x${c.colspan}`,
      })),
    })),
  };
}

function cellCost(a: TreeNode, b: TreeNode): number {
  if (a.label !== b.label) return 1;
  if (a.label !== 'td') return 0;
  const x = a as CellNode;
  const y = b as CellNode;
  if (x.span !== y.span) return 1;
  return normalizedEditDistance(x.text ?? '', y.text ?? '');
}

function size(t: Table): number {
  return 1 + t.rows.length + t.rows.reduce((s, r) => s + r.length, 0);
}

/** TEDS of two tables, 0–1 (1 = same structure and content). */
export function teds(gt: Table, pred: Table): number {
  const n = Math.max(size(gt), size(pred));
  return 1 - treeEditDistance(tableTree(gt), tableTree(pred), cellCost) / n;
}

/**
 * Each ground-truth table's score against the predicted table it is paired with, pairs taken
 * greedily from the best score down, each predicted table used once (0 for a table left unpaired).
 * Shared by this TEDS and PubTabNet's (tedsPubTabNet.ts), so both pair tables the same way.
 */
export function bestPairing(gt: Table[], pred: Table[], score: (g: Table, p: Table) => number): number[] {
  const pairs: [number, number, number][] = [];
  for (let i = 0; i < gt.length; i++) for (let j = 0; j < pred.length; j++) pairs.push([score(gt[i], pred[j]), i, j]);
  pairs.sort((a, b) => b[0] - a[0]);
  const best = new Array<number>(gt.length).fill(0);
  const usedG = new Set<number>();
  const usedP = new Set<number>();
  for (const [s, i, j] of pairs) {
    if (usedG.has(i) || usedP.has(j)) continue;
    usedG.add(i);
    usedP.add(j);
    best[i] = s;
  }
  return best;
}

/**
 * Mean over ground-truth tables of the best TEDS against any predicted table (each predicted
 * table used once, greedily from the best pair). undefined when the ground truth has no table.
 */
export function meanTeds(gt: Table[], pred: Table[]): number | undefined {
  if (gt.length === 0) return undefined;
  gt = gt.map(expandSpans);
  pred = pred.map(expandSpans);
  const best = bestPairing(gt, pred, teds);
  return best.reduce((a, b) => a + b, 0) / gt.length;
}

/** F1 of non-empty cell texts (as multisets, compared after `matchKey`) over all tables. */
export function cellF1(gt: Table[], pred: Table[]): Prf {
  const bag = (ts: Table[]) => {
    const m = new Map<string, number>();
    let n = 0;
    for (const t of ts)
      for (const r of t.rows)
        for (const c of r) {
          const k = matchKey(c.text);
          if (!k) continue;
          m.set(k, (m.get(k) ?? 0) + 1);
          n++;
        }
    return { m, n };
  };
  const g = bag(gt.map(expandSpans));
  const p = bag(pred.map(expandSpans));
  let matched = 0;
  for (const [k, c] of g.m) matched += Math.min(c, p.m.get(k) ?? 0);
  return prf(matched, g.n, p.n);
}
