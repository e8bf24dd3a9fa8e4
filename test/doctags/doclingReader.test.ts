/**
 * Folio's DocTags as docling-core's own reader reads them (issue 42): printed list labels once,
 * inline math in a list item still math, `<` kept where a reader can keep it.
 *
 * CI has no Python docling-core, so `doclingCoreReads` below restates the reader's rules, as read
 * in docling-core b7a4298 (v2.87.1+), `docling_core/types/doc/document.py`
 * `DoclingDocument.load_from_doctags`, and what its Markdown export
 * (`docling_core/transforms/serializer/markdown.py`, list markers) prints of them:
 * - the top-level elements are found by one pattern of the known tags, each up to its own
 *   closing tag (`tag_pattern`);
 * - an element's text is its chunk with every `<` + letter-or-`/` … `>` removed, `<_…_>` kept,
 *   then trimmed (`extract_inner_text`); no entity is decoded;
 * - an `<ordered_list>`'s items get the marker "1.", "2.", … by their place, an
 *   `<unordered_list>`'s none (printed "-"); the item's text as above, tags and all removed;
 * - a top-level `<inline>` is a group whose `<text>` and `<formula>` children are items (a
 *   formula printed `$…$`, parts joined by a space).
 * The same check was run by hand with docling-core itself (scripts/docling-core-check.py).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serializePage } from '../../server/doctags/serialize';
import { parseDocTags } from '../../server/doctags/parse';
import { documentToMarkdown } from '../../server/doctags/markdown';
import type { DocItem } from '../../server/model/items';

const TOP_TAGS =
  'title|document_index|checkbox_unselected|checkbox_selected|text|page_header|inline|page_footer|formula|' +
  'caption|picture|footnote|code|section_header_level_[1-6]|ordered_list|unordered_list|key_value_region|chart|otsl';

function topLevel(s: string): { tag: string; content: string; chunk: string }[] {
  const re = new RegExp(`<(?<tag>${TOP_TAGS})>(?<content>.*?)(?:</\\k<tag>>|$)`, 'gs');
  return [...s.matchAll(re)].map((m) => ({ tag: m.groups!.tag!, content: m.groups!.content!, chunk: m[0] }));
}

function innerText(chunk: string): string {
  return chunk.replace(/<(?!_.*?_>)[a-zA-Z/][^>]*>/g, '').trim();
}

/** The lines docling-core's reader and Markdown export make of one page of DocTags. */
function doclingCoreReads(doctags: string): string[] {
  const out: string[] = [];
  for (const el of topLevel(doctags)) {
    if (el.tag === 'ordered_list' || el.tag === 'unordered_list') {
      let n = 0;
      for (const li of el.chunk.matchAll(/<list_item>.*?<\/list_item>/gs)) {
        n++;
        out.push(`${el.tag === 'ordered_list' ? `${n}.` : '-'} ${innerText(li[0])}`);
      }
    } else if (el.tag === 'inline') {
      out.push(
        topLevel(el.content)
          .map((c) => (c.tag === 'formula' ? `$${innerText(c.chunk)}$` : innerText(c.chunk)))
          .join(' '),
      );
    } else out.push(innerText(el.chunk));
  }
  return out;
}

const li = (text: string, marker?: string, parts?: DocItem['parts']): DocItem => ({
  cls: 'list_item',
  text,
  ordered: true,
  level: 0,
  grid: [10, 10, 90, 20],
  ...(marker ? { marker } : {}),
  ...(parts ? { parts } : {}),
});

test("docling-core's reader prints each printed list label once", () => {
  for (const labels of [
    ['3)', '4)', '5)'],
    ['(1)', '(2)'],
    ['a.', 'b.', 'c.'],
    ['1)', '2)'],
    ['1.', '5.', '6.'],
    ['212.', '213.'],
  ]) {
    const items = labels.map((l, i) => li(`item ${i} is offset`, l));
    const doctags = serializePage(items);
    const lines = doclingCoreReads(doctags);
    assert.equal(lines.length, labels.length, doctags);
    lines.forEach((line, i) => {
      // The label as printed, once: not preceded by the reader's own number ("1. 3) is offset").
      assert.equal(line, `- ${labels[i]} item ${i} is offset`, doctags);
    });
    // Folio reads its own DocTags back to the same labels.
    const md = documentToMarkdown([parseDocTags(`<doctag>${doctags}\n</doctag>`)[0]!.items]);
    assert.equal(md.split('\n').length, labels.length, md);
    labels.forEach((l, i) => assert.ok(md.split('\n')[i]!.includes(`item ${i} is offset`), md));
    assert.deepEqual(
      parseDocTags(`<doctag>${doctags}\n</doctag>`)[0]!.items.map((it) => [it.ordered, it.marker, it.text]),
      items.map((it) => [true, it.marker, it.text]),
    );
  }
  // A nested labelled list whose outer level has no items of its own (a level the input
  // skipped): the empty outer list must not make the reader number the nested items.
  const nested = [li('second', '(2)'), li('fifth', '5)')].map((it) => ({ ...it, level: 1 }));
  const nestedTags = serializePage(nested);
  assert.deepEqual(doclingCoreReads(nestedTags), ['- (2) second', '- 5) fifth'], nestedTags);
  assert.deepEqual(
    parseDocTags(`<doctag>${nestedTags}\n</doctag>`)[0]!.items.map((it) => [it.ordered, it.marker, it.text, it.level]),
    [
      [true, '(2)', 'second', 1],
      [true, '5)', 'fifth', 1],
    ],
  );
  // Numbered 1., 2., … in order: the reader's own numbers, no label in the text.
  const seq = doclingCoreReads(serializePage([li('Undo', '1.'), li('Redo', '2.')]));
  assert.deepEqual(seq, ['1. Undo', '2. Redo']);
});

test("docling-core's reader keeps an inline formula in a list item (or a heading) as $…$", () => {
  const parts = [
    { math: false, text: 'a rolling buffer cache of fixed size ' },
    { math: true, text: 'W' },
    { math: false, text: '; keys ' },
    { math: true, text: 'i < W' },
  ];
  const items: DocItem[] = [
    li('a rolling buffer cache of fixed size W; keys i < W', '1.', parts),
    {
      cls: 'section_header',
      level: 1,
      text: 'The case W',
      grid: [1, 1, 9, 9],
      parts: [
        { math: false, text: 'The case ' },
        { math: true, text: 'W' },
      ],
    },
  ];
  const doctags = serializePage(items);
  const lines = doclingCoreReads(doctags);
  assert.equal(lines[0], '1. a rolling buffer cache of fixed size $W$; keys $i < W$', doctags);
  assert.equal(lines[1], 'The case $W$', doctags);
  // Folio reads the same parts back (the dollars are its writing, not the formula's).
  const back = parseDocTags(`<doctag>${doctags}\n</doctag>`)[0]!.items;
  assert.deepEqual(back[0]!.parts, parts);
  assert.deepEqual(back[1]!.parts, items[1]!.parts);
  // A paragraph stays docling's top-level inline group, its formulas without dollars.
  const para = serializePage([
    {
      cls: 'text',
      text: 'x W',
      grid: [1, 1, 2, 2],
      parts: [
        { math: false, text: 'x ' },
        { math: true, text: 'W' },
      ],
    },
  ]);
  assert.match(para, /<formula>W<\/formula>/);
  assert.deepEqual(doclingCoreReads(para), ['x $W$']);
});

test("docling-core's reader keeps `<` wherever it cannot be read as a tag; no entity is left where none was needed", () => {
  const text = 'x<0, a < b, i<=j, 3<4 and p<.05';
  const lines = doclingCoreReads(serializePage([{ cls: 'text', text, grid: [1, 1, 2, 2] }, li(text, '1.')]));
  assert.deepEqual(lines, [text, `1. ${text}`]);
  assert.ok(!lines.some((l) => /&(lt|gt|amp);/.test(l)));
});
