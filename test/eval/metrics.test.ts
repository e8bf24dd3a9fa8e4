import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fuzzyF1 } from '../../eval/metrics/match';
import { treeEditDistance, type TreeNode } from '../../eval/metrics/treeEdit';
import { cellF1, meanTeds, teds } from '../../eval/metrics/tables';
import { expandSpans, type Table } from '../../eval/metrics/table';
import { formulasFound, readingOrder } from '../../eval/metrics/order';
import { parseMarkdown } from '../../eval/metrics/markdown';
import { scoreDocument } from '../../eval/metrics/score';

const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-9, `${a} ≠ ${b}`);

test('fuzzyF1: fuzzy text match and level-aware match', () => {
  const gt = [
    { text: 'Introduction', level: 1 },
    { text: 'Related Work', level: 2 },
    { text: 'Results', level: 2 },
  ];
  const pred = [
    { text: 'introduction', level: 1 },
    { text: 'Related Wrok', level: 1 },
    { text: 'Discussion', level: 2 },
  ];
  const f = fuzzyF1(gt, pred);
  assert.equal(f.matched, 2);
  close(f.f1, 2 / 3);
  const l = fuzzyF1(gt, pred, { sameLevel: true });
  assert.equal(l.matched, 1);
  close(l.f1, 1 / 3);
  assert.equal(fuzzyF1(gt, []).f1, 0);
});

const n = (label: string, ...children: TreeNode[]): TreeNode => ({ label, children });
const unit = (a: TreeNode, b: TreeNode) => (a.label === b.label ? 0 : 1);

test('treeEditDistance: Zhang–Shasha textbook example and simple cases', () => {
  // f(d(a, c(b)), e) → f(c(d(a, b)), e): delete c under d, insert c above d = 2.
  const t1 = n('f', n('d', n('a'), n('c', n('b'))), n('e'));
  const t2 = n('f', n('c', n('d', n('a'), n('b'))), n('e'));
  assert.equal(treeEditDistance(t1, t2, unit), 2);
  assert.equal(treeEditDistance(t1, t1, unit), 0);
  assert.equal(treeEditDistance(n('a', n('b'), n('c')), n('a', n('b')), unit), 1);
  assert.equal(treeEditDistance(n('a'), n('b', n('c')), unit), 2);
});

const tbl = (rows: string[][]): Table => ({
  rows: rows.map((r) => r.map((text) => ({ text, rowspan: 1, colspan: 1, header: false }))),
});

test('TEDS: identical, one cell wrong, a row missing, spans differ', () => {
  const gt = tbl([
    ['a', 'b'],
    ['c', 'd'],
  ]);
  close(teds(gt, gt), 1);
  // 7 nodes; one cell text entirely different: relabel cost 1.
  close(
    teds(
      gt,
      tbl([
        ['a', 'b'],
        ['c', 'zzz'],
      ]),
    ),
    1 - 1 / 7,
  );
  // Missing row: delete tr + 2 td = 3.
  close(teds(gt, tbl([['a', 'b']])), 1 - 3 / 7);
  const spanned: Table = {
    rows: [
      [{ text: 'a', rowspan: 1, colspan: 2, header: false }],
      [
        { text: 'c', rowspan: 1, colspan: 1, header: false },
        { text: 'd', rowspan: 1, colspan: 1, header: false },
      ],
    ],
  };
  // gt has 7 nodes, spanned 6: delete cell b (1) + relabel a (span differs: 1) = 2.
  close(teds(gt, spanned), 1 - 2 / 7);
  close(meanTeds([gt], [])!, 0);
  assert.equal(meanTeds([], [gt]), undefined);
});

test('cellF1: multiset of cell texts', () => {
  const f = cellF1(
    [
      tbl([
        ['a', 'b'],
        ['c', 'd'],
      ]),
    ],
    [tbl([['A', 'b', 'x']])],
  );
  assert.equal(f.matched, 2);
  close(f.f1, 4 / 7);
});

test('readingOrder: pairs of consecutive paragraphs found in order', () => {
  const gt = parseMarkdown(
    'First paragraph of some length.\n\nSecond paragraph of some length.\n\nThird paragraph of some length.',
  );
  close(
    readingOrder(
      gt,
      'First paragraph of some length. Second paragraph of some length. Third paragraph of some length.',
    )!.score,
    1,
  );
  close(
    readingOrder(
      gt,
      'First paragraph of some length. Third paragraph of some length. Second paragraph of some length.',
    )!.score,
    0.5,
  );
  close(readingOrder(gt, 'Third paragraph of some length.')!.score, 0);
});

test('formulasFound: LaTeX against a Unicode rendering, placeholders, text-only output', () => {
  const gt = parseMarkdown('$$\\frac{a}{b} = \\sqrt{c}$$\n\n<!-- formula-not-decoded -->');
  close(formulasFound(gt, parseMarkdown('$$ a/b = √c $$'))!.recall, 0.5);
  close(formulasFound(gt, parseMarkdown('$$ a/b = √c $$\n\n$$x$$'))!.recall, 1);
  close(formulasFound(gt, parseMarkdown('a/b = √c'))!.recall, 0);
});

test('scoreDocument: perfect output scores perfectly; plain text gets no structure', () => {
  const md =
    '# Title\n\nSome paragraph text that is long enough.\n\n- item one\n- item two\n\n| h1 | h2 |\n|---|---|\n| x | y |\n\nAnother closing paragraph here.';
  const s = scoreDocument(md, md, 'markdown');
  assert.equal(s.ned, 0);
  assert.equal(s.headingF1, 1);
  assert.equal(s.listF1, 1);
  assert.equal(s.tableCellF1, 1);
  assert.equal(s.teds, 1);
  assert.equal(s.readingOrder, 1);
  const plain = scoreDocument(
    md,
    'Title\n\nSome paragraph text that is long enough.\n\nitem one\nitem two\n\nh1 h2\nx y\n\nAnother closing paragraph here.',
    'text',
  );
  assert.equal(plain.ned, 0);
  assert.equal(plain.headingF1, 0);
  assert.equal(plain.teds, 0);
});

test('expandSpans: an HTML colspan/rowspan table meets GFM ground truth that repeats the text', () => {
  const html = parseMarkdown(
    '<table><tr><td rowspan="2">A</td><td colspan="2">B</td></tr><tr><td>c</td><td>d</td></tr></table>',
  ).find((b) => b.kind === 'table')!.table!;
  assert.deepEqual(
    expandSpans(html).rows.map((r) => r.map((c) => c.text)),
    [
      ['A', 'B', 'B'],
      ['A', 'c', 'd'],
    ],
  );
  const gfm = parseMarkdown('| A | B | B |\n|---|---|---|\n| A | c | d |').find((b) => b.kind === 'table')!.table!;
  close(meanTeds([gfm], [html])!, 1);
  close(cellF1([gfm], [html]).f1, 1);
  // Without expansion the two differ in structure.
  assert.ok(teds(gfm, html) < 1);
});
