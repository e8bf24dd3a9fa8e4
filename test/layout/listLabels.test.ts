/**
 * Issue 23, class 1: a list keeps the document's own labels ("(a)", "(iii)", "212.") through the
 * DocTags round trip the converter makes (items → DocTags → items → Markdown), instead of
 * Markdown renumbering every list from "1.". Real pdfTeX book from the shared corpus.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeFile } from './convertFile';
import { corpusPath } from '../helpers/corpus';
import { serializePage } from '../../server/doctags/serialize';
import { parseDocTags } from '../../server/doctags/parse';
import { documentToMarkdown } from '../../server/doctags/markdown';
import type { DocItem } from '../../server/model/items';

/** The Markdown the converter writes: the items after their DocTags round trip (pageResult.ts). */
function roundTripMarkdown(pages: DocItem[][]): string {
  return documentToMarkdown(pages.map((items) => parseDocTags(serializePage(items))[0]?.items ?? []));
}

test('parenthesised letter and roman labels are kept (GeoTopo, pages 60 and 90)', async () => {
  const pages = await analyzeFile(
    corpusPath('py-pdf-sample-files/009-pdflatex-geotopo/GeoTopo-komprimiert.pdf'),
    [60, 90],
  );
  const md = roundTripMarkdown(pages.map((p) => p.items));
  for (const s of ['(iii)', '(iv)', '(a) Die beiden Nebenwinkel von', '(b) Der Winkel', '(c) Sind'])
    assert.ok(md.includes(s), `${s} in:\n${md}`);
  for (const s of ['1. Die beiden Nebenwinkel', '1. Sei'])
    assert.ok(!md.includes(s), `no renumbered "${s}" in:\n${md}`);
});

test('a list starts at the document number and letter labels stay text through DocTags', () => {
  const items: DocItem[] = [
    { cls: 'list_item', text: 'Prove it.', ordered: true, level: 0, marker: '212.' },
    { cls: 'list_item', text: 'Prove more.', ordered: true, level: 0, marker: '213.' },
    { cls: 'list_item', text: 'Syntax', ordered: true, level: 1, marker: 'a.' },
    { cls: 'list_item', text: 'Sub part', ordered: true, level: 1, marker: '(iii)' },
    { cls: 'list_item', text: 'Plain numbering', ordered: true, level: 0 },
  ];
  const doctags = serializePage(items);
  assert.match(doctags, /<list_item>212\. Prove it\.<\/list_item>/);
  const back = parseDocTags(doctags)[0]!.items;
  assert.deepEqual(
    back.map((i) => [i.marker, i.text]),
    [
      ['212.', 'Prove it.'],
      ['213.', 'Prove more.'],
      ['a.', 'Syntax'],
      ['(iii)', 'Sub part'],
      [undefined, 'Plain numbering'],
    ],
  );
  assert.equal(
    documentToMarkdown([back]),
    '212. Prove it.\n213. Prove more.\n     - a. Syntax\n     - (iii) Sub part\n214. Plain numbering',
  );
});
