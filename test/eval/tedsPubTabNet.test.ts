import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseHtmlTable, parsePipeTable, type Table, type TableCell } from '../../eval/metrics/table';
import { cellContent, nodesBelowRoot, pageTeds, pubTabNetTree, tedsPubTabNet } from '../../eval/metrics/tedsPubTabNet';

const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-9, `${a} ≠ ${b}`);
const c = (text: string, o: Partial<TableCell> = {}): TableCell => ({
  text,
  rowspan: 1,
  colspan: 1,
  header: false,
  ...o,
});
const body = (...rows: string[][]): Table => ({ rows: rows.map((r) => r.map((t) => c(t))) });

// Expected values worked by hand from PubTabNet's definition (unit insert/delete, relabel by
// normalized Levenshtein of cell contents, 1 when spans differ; n = nodes below `table`).

test('TEDS: identical tables score 1, an empty one 0', () => {
  const t = parsePipeTable(['| a | b |', '|---|---|', '| 1 | 2 |']);
  close(tedsPubTabNet(t, t), 1);
  assert.equal(tedsPubTabNet(t, { rows: [] }), 0);
  assert.equal(tedsPubTabNet({ rows: [] }, t), 0);
});

test('TEDS: one character wrong in one cell of a one-row table', () => {
  // tbody, tr, td, td = 4 nodes; relabel "cd"→"ce" costs 1/2.
  close(tedsPubTabNet(body(['ab', 'cd']), body(['ab', 'ce'])), 1 - 0.5 / 4);
});

test('TEDS: a missing row costs its tr and its cells', () => {
  // gt: tbody + 2 tr + 4 td = 7; pred lacks one tr and two td: distance 3.
  close(tedsPubTabNet(body(['a', 'b'], ['c', 'd']), body(['a', 'b'])), 1 - 3 / 7);
});

test('TEDS: a spanning cell written as two cells costs a relabel and an insert', () => {
  const gt: Table = { rows: [[c('Year Ended', { colspan: 2 })]] };
  // gt 3 nodes, pred 4: relabel (spans differ) 1 + insert td 1 = 2, over 4.
  close(tedsPubTabNet(gt, body(['Year Ended', ''])), 1 - 2 / 4);
  close(tedsPubTabNet(gt, { rows: [[c('Year Ended', { colspan: 2 })]] }), 1);
});

test('TEDS: a header row read as body moves the row out of thead', () => {
  const gt = parseHtmlTable('<table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2</td></tr></table>');
  const tree = pubTabNetTree(gt);
  assert.deepEqual(
    tree.children.map((x) => x.label),
    ['thead', 'tbody'],
  );
  assert.equal(nodesBelowRoot(tree), 8);
  // pred: tbody, 2 tr, 4 td = 7. Best script: delete thead and tbody, insert one tbody = 3.
  close(tedsPubTabNet(gt, body(['A', 'B'], ['1', '2'])), 1 - 3 / 8);
});

test('TEDS: contents compared without Markdown emphasis and escapes', () => {
  assert.equal(cellContent('**Total**  revenue'), 'Total revenue');
  assert.equal(cellContent('1\\.5 \\| x'), '1.5 | x');
  close(tedsPubTabNet(body(['Total', '1.5']), body(['**Total**', '1\\.5'])), 1);
});

test('pageTeds: each predicted table used once, unmatched ground truth scores 0', () => {
  const t1 = body(['a', 'b']);
  const t2 = body(['x', 'y'], ['z', 'w']);
  const r = pageTeds([t1, t2], [t1]);
  assert.ok(r);
  close(r.perTable[0], 1);
  assert.equal(r.perTable[1], 0);
  close(r.mean, 0.5);
  assert.equal(pageTeds([], [t1]), undefined);
});
