/**
 * A list item's printed label carried through DocTags (server/doctags/listLabel.ts): one-level
 * labels and Word's multi-level outline labels ("1.1.", "2.3.1") survive serialize → parse →
 * Markdown, and a DOCX's multi-level list keeps them from the reader to the Markdown.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { isListLabel, splitListLabel, numberOfLabel } from '../../server/doctags/listLabel';
import { serializePage } from '../../server/doctags/serialize';
import { parseDocTags } from '../../server/doctags/parse';
import { documentToMarkdown } from '../../server/doctags/markdown';
import { readStructured } from '../../server/office';
import { repoRoot } from '../helpers/corpus';
import type { DocItem } from '../../server/model/items';

test('multi-level labels are labels; decimals, longer runs and other dotted words are not', () => {
  for (const l of ['1.1.', '2.3.1', '1.2)', '10.4.2.1.', '1.', 'a)', '(iv)']) assert.ok(isListLabel(l), l);
  for (const l of ['1.1.1.1.1.1.1', '1..2', '1.a', 'v1.2', '12345.', '1.1.x', '3.14', '1.1'])
    assert.ok(!isListLabel(l), l);
  // An item whose text starts with a decimal keeps it: "3.14" is no label.
  assert.equal(splitListLabel('3.14 is pi'), undefined);
  assert.deepEqual(splitListLabel('2.3.1 Market stops'), { label: '2.3.1', rest: 'Market stops' });
  assert.deepEqual(splitListLabel('1.1. Morning walk'), { label: '1.1.', rest: 'Morning walk' });
  // Not a plain number: Markdown writes it after a bullet, as Docling does ("- 1.1. Sub one").
  assert.equal(numberOfLabel('1.1.'), undefined);
});

const li = (text: string, marker: string, level: number): DocItem => ({
  cls: 'list_item',
  text,
  ordered: true,
  level,
  marker,
  grid: [10, 10, 90, 20],
});

test('multi-level labels survive DocTags: serialized in the text, parsed back to the marker, written once', () => {
  const items = [li('Morning walk', '1.1.', 0), li('Greenhouse', '1.2.', 0), li('Bench setup', '2.3.1', 0)];
  const doctags = serializePage(items);
  assert.match(doctags, /<list_item>(?:<loc_\d+>)*1\.1\. Morning walk<\/list_item>/, doctags);
  assert.match(doctags, /<list_item>(?:<loc_\d+>)*2\.3\.1 Bench setup<\/list_item>/, doctags);
  const back = parseDocTags(`<doctag>${doctags}\n</doctag>`)[0]!.items;
  assert.deepEqual(
    back.map((it) => [it.ordered, it.marker, it.text]),
    items.map((it) => [true, it.marker, it.text]),
  );
  assert.deepEqual(documentToMarkdown([back]).split('\n'), [
    '- 1.1. Morning walk',
    '- 1.2. Greenhouse',
    '- 2.3.1 Bench setup',
  ]);
});

test("a Word outline list's labels (1., 1.1., 1.2.) reach the Markdown", () => {
  const path = join(repoRoot(), 'eval', 'office', 'docling', 'docx', 'sources', 'docx_list_blank_spacer.docx');
  const items = readStructured(path, 'docx').pages.flatMap((p) => p.items);
  const labelled = items.filter((it) => it.cls === 'list_item' && it.marker && /^\d+\.\d/.test(it.marker));
  assert.ok(labelled.length >= 2, JSON.stringify(items.map((it) => [it.cls, it.marker, it.text])));
  const doctags = serializePage(items);
  const md = documentToMarkdown([parseDocTags(`<doctag>${doctags}\n</doctag>`)[0]!.items]);
  for (const it of labelled) assert.ok(md.includes(`${it.marker} ${it.text}`), `${it.marker} ${it.text}\n${md}`);
});
