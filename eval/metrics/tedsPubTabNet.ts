/**
 * TEDS as PubTabNet defines it (Zhong, ShafieiBavani, Jimeno Yepes, "Image-based table
 * recognition: data, model, and evaluation", ECCV 2020; ibm-aur-nlp/PubTabNet src/metric.py),
 * written here from that definition:
 *
 * - The tree of a table is `table` → `thead` / `tbody` → `tr` → `td`; a `td` is a leaf carrying
 *   its colspan, rowspan and content (the cell's characters).
 * - Insert and delete cost 1. Renaming costs 1 when tag, colspan or rowspan differ; for two `td`
 *   of equal spans it costs the normalized Levenshtein distance of their contents (0 when both
 *   are empty); for any other equal tags 0.
 * - TEDS = 1 − TED / max(n_gt, n_pred), where n counts the nodes below the `table` root (lxml's
 *   `.//*` in the reference: thead, tbody, tr, td). An empty table on either side scores 0.
 *
 * Spans are compared as given (not expanded to a grid): a converter that writes one cell
 * spanning two columns where the ground truth does too is right, one that writes two cells is
 * not. Header rows (the leading rows whose cells are all headers, `<th>` or a pipe table's first
 * row) form the `thead`. Differences from the reference: cell content is compared after NFKC,
 * whitespace collapsing and dropping Markdown emphasis and backslash escapes (`**`, `__`, `\|`),
 * because converters write Markdown while the reference reads HTML whose inline tags (`<b>`) it
 * counts as tokens; `th` is read as `td` (PubTabNet's HTML has no `th`).
 */
import { normalizedEditDistance } from './levenshtein';
import type { Table, TableCell } from './table';
import { bestPairing } from './tables';
import { treeEditDistance, type TreeNode } from './treeEdit';

interface CellLeaf extends TreeNode {
  colspan: number;
  rowspan: number;
  content: string;
}

/** Cell text as PubTabNet's tokens see it, less the Markdown a converter adds. */
export function cellContent(text: string): string {
  return text
    .normalize('NFKC')
    .replace(/\\([\\`*_{}[\]()#+\-.!|])/g, '$1')
    .replace(/\*\*|__/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Leading rows whose every cell is a header. */
function headRowCount(t: Table): number {
  let n = 0;
  while (n < t.rows.length && t.rows[n].length > 0 && t.rows[n].every((c) => c.header)) n++;
  // A table of header cells only is all body: the reference's thead needs a tbody below it.
  return n === t.rows.length ? 0 : n;
}

function leaf(c: TableCell): CellLeaf {
  return { label: 'td', children: [], colspan: c.colspan, rowspan: c.rowspan, content: cellContent(c.text) };
}

/** The PubTabNet tree of a table (root `table`). */
export function pubTabNetTree(t: Table): TreeNode {
  const h = headRowCount(t);
  const tr = (r: TableCell[]): TreeNode => ({ label: 'tr', children: r.map(leaf) });
  const groups: TreeNode[] = [];
  if (h > 0) groups.push({ label: 'thead', children: t.rows.slice(0, h).map(tr) });
  if (t.rows.length > h) groups.push({ label: 'tbody', children: t.rows.slice(h).map(tr) });
  return { label: 'table', children: groups };
}

/** Nodes below the root, as `.//*` counts them. */
export function nodesBelowRoot(tree: TreeNode): number {
  let n = 0;
  const stack = [...tree.children];
  while (stack.length) {
    const x = stack.pop()!;
    n++;
    stack.push(...x.children);
  }
  return n;
}

function renameCost(a: TreeNode, b: TreeNode): number {
  if (a.label !== b.label) return 1;
  if (a.label !== 'td') return 0;
  const x = a as CellLeaf;
  const y = b as CellLeaf;
  if (x.colspan !== y.colspan || x.rowspan !== y.rowspan) return 1;
  if (!x.content && !y.content) return 0;
  return normalizedEditDistance(x.content, y.content);
}

/** TEDS of a predicted table against a ground-truth table, 0–1. */
export function tedsPubTabNet(gt: Table, pred: Table): number {
  const g = pubTabNetTree(gt);
  const p = pubTabNetTree(pred);
  const n = Math.max(nodesBelowRoot(g), nodesBelowRoot(p));
  if (nodesBelowRoot(g) === 0 || nodesBelowRoot(p) === 0) return 0;
  return 1 - treeEditDistance(g, p, renameCost) / n;
}

/**
 * Per ground-truth table the TEDS of its best predicted table, each predicted table used once
 * (pairs taken greedily from the best); the page score is their mean. A ground-truth table no
 * predicted table is left for scores 0. undefined when the ground truth has no table.
 */
export function pageTeds(gt: Table[], pred: Table[]): { mean: number; perTable: number[] } | undefined {
  if (gt.length === 0) return undefined;
  const best = bestPairing(gt, pred, tedsPubTabNet);
  return { mean: best.reduce((a, b) => a + b, 0) / gt.length, perTable: best };
}
