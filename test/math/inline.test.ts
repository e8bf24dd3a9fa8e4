/**
 * Inline math through DocTags and Markdown: a paragraph with formulas is written as docling's
 * inline group (`<inline>` with `<text>` and `<formula>` children), read back into the same
 * parts, and written to Markdown as `$…$` inside the text; a list item keeps its group too.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serializePage } from '../../server/doctags/serialize';
import { parseDocTags } from '../../server/doctags/parse';
import { pageToMarkdown } from '../../server/doctags/markdown';
import { partsToText, type DocItem } from '../../server/model/items';

const parts = [
  { math: false, text: 'positions up to ' },
  { math: true, text: 'i-k\\times W' },
  { math: false, text: ', with ' },
  { math: true, text: 'h_{i}' },
  { math: false, text: ' kept.' },
];

test('a paragraph with inline math round-trips through DocTags and becomes $…$ in Markdown', () => {
  const item: DocItem = { cls: 'text', text: partsToText(parts), parts, grid: [10, 20, 300, 40] };
  const dt = serializePage([item]);
  assert.equal(
    dt,
    '<inline><loc_10><loc_20><loc_300><loc_40><text>positions up to </text><formula>i-k\\times W</formula><text>, with </text><formula>h_{i}</formula><text> kept.</text></inline>',
  );
  const [page] = parseDocTags(dt);
  assert.equal(page!.items.length, 1);
  const back = page!.items[0]!;
  assert.equal(back.cls, 'text');
  assert.deepEqual(back.parts, parts);
  assert.deepEqual(back.grid, [10, 20, 300, 40]);
  assert.equal(pageToMarkdown(page!.items).markdown, 'positions up to $i-k\\times W$, with $h_{i}$ kept.');
});

test('a list item with inline math keeps its formulas; text around them is still escaped', () => {
  const p = [
    { math: false, text: 'a cache of size ' },
    { math: true, text: 'W' },
    { math: false, text: ' *fixed*' },
  ];
  const item: DocItem = { cls: 'list_item', text: partsToText(p), parts: p, level: 0, ordered: true };
  const [page] = parseDocTags(serializePage([item]));
  const back = page!.items[0]!;
  assert.equal(back.cls, 'list_item');
  assert.deepEqual(back.parts, p);
  assert.equal(pageToMarkdown(page!.items).markdown, '1. a cache of size $W$ \\*fixed\\*');
});

test('a display formula stays a formula element and a $$ block', () => {
  const item: DocItem = { cls: 'formula', text: '\\frac{a}{b}' };
  const [page] = parseDocTags(serializePage([item]));
  assert.equal(page!.items[0]!.cls, 'formula');
  assert.equal(pageToMarkdown(page!.items).markdown, '$$\\frac{a}{b}$$');
});
