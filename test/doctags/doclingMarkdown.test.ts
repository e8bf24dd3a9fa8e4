/**
 * The other direction of issue 30: Folio reads the DocTags that Docling wrote (the
 * `*.doctags.txt` beside `../shared/corpus/docling/pdf/*.pdf`) into the same Markdown as
 * Docling's own `*.md` beside them, up to these listed differences (docs/formats.md):
 *
 * 1. Tables with merged cells: Folio writes an HTML table with colspan/rowspan, Docling a pipe
 *    table repeating the spanning text; both are replaced by one placeholder per table (the
 *    number of tables must still agree).
 * 2. Markdown escapes: Folio escapes what would change the Markdown where it stands (`\*`,
 *    `1\)` at a line start, `\$`), Docling escapes every `_`; backslash escapes are removed.
 * 3. List markers: Docling's numbers come from its DoclingDocument's markers ("23."), which DocTags
 *    does not carry; Folio numbers from the DocTags (an `<unordered_list>` is bullets). The
 *    marker at a line start is removed.
 *
 * After these, every line is the same.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { corpusPath } from '../helpers/corpus';
import { parseDocTags } from '../../server/doctags/parse';
import { documentToMarkdown } from '../../server/doctags/markdown';
import { serializePage } from '../../server/doctags/serialize';
import type { DocItem } from '../../server/model/items';

const TABLE = /<table>[\s\S]*?<\/table>|(^\|.*\|$\n?)+/gm;

function normalize(md: string): string[] {
  return md
    .replace(TABLE, '<TABLE>\n')
    .replace(/\\([\\`*_{}[\]()#+\-.!|<>~$])/g, '$1')
    .split('\n')
    .map((l) => l.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, '').trimEnd())
    .filter((l) => l.trim() !== '');
}

test("Folio's Markdown of Docling's DocTags equals Docling's Markdown, up to the listed differences", () => {
  const dir = corpusPath('docling/pdf');
  const files = readdirSync(dir).filter((f) => f.endsWith('.doctags.txt'));
  assert.ok(files.length >= 11, `the corpus's DocTags files (${files.length})`);
  let lines = 0;
  for (const f of files) {
    const docling = readFileSync(join(dir, f.replace(/\.doctags\.txt$/, '.md')), 'utf8');
    const folio = documentToMarkdown(parseDocTags(readFileSync(join(dir, f), 'utf8')).map((p) => p.items));
    assert.equal((folio.match(TABLE) ?? []).length, (docling.match(TABLE) ?? []).length, `${f}: the same tables`);
    const want = normalize(docling);
    const got = normalize(folio);
    assert.deepEqual(got, want, `${f}: the same Markdown up to the listed differences`);
    lines += want.length;
  }
  assert.ok(lines > 400, `${lines} lines compared`);
});

test("Folio's DocTags in docling-core's conventions: no label a reader numbers itself, no escape it would not decode", () => {
  const item = (text: string, marker?: string): DocItem => ({
    cls: 'list_item',
    text,
    ordered: true,
    level: 0,
    grid: [10, 10, 90, 20],
    ...(marker ? { marker } : {}),
  });
  const sequential = serializePage([item('Undo', '1.'), item('Redo', '2.'), item('Copy', '3.')]);
  // docling-core's load_from_doctags numbers an <ordered_list>'s items 1., 2., … itself.
  assert.doesNotMatch(sequential, /<loc_20>\d+\./, sequential);
  assert.match(sequential, /<loc_20>Undo<\/list_item>/);
  const printed = serializePage([item('Fourth', '(4)'), item('Tenth', '10)')]);
  assert.match(printed, /<loc_20>\(4\) Fourth</, 'a label that is not the place stays in the text');
  assert.match(printed, /<loc_20>10\) Tenth</);
  assert.match(printed, /^<unordered_list>/, 'labels of its own: not a list the reader numbers');
  const broken = serializePage([item('One', '1.'), item('Five', '5.'), item('Six', '6.')]);
  assert.match(broken, /^<unordered_list>/);
  assert.match(broken, /<loc_20>1\. One</, 'once a label is not its place, every label is in the text');
  assert.match(broken, /<loc_20>5\. Five</);
  const partly = serializePage([item('One', '1.'), item('Five', '5.'), item('None')]);
  assert.match(partly, /^<ordered_list>.*<loc_20>One</, 'an item without a label: an ordered list, as before');
  assert.match(partly, /<loc_20>5\. Five</);
  assert.equal(
    documentToMarkdown([parseDocTags(`<doctag>${sequential}\n</doctag>`)[0]!.items]),
    '1. Undo\n2. Redo\n3. Copy',
  );
  assert.equal(documentToMarkdown([parseDocTags(`<doctag>${broken}\n</doctag>`)[0]!.items]), '1. One\n5. Five\n6. Six');
  // Text: raw where no reader could take it for a tag; escaped where it could.
  const text: DocItem = { cls: 'text', text: 'x<0, i>W, a < b, R&D, <b>bold</b> &lt;', grid: [1, 1, 2, 2] };
  const tags = serializePage([text]);
  assert.match(tags, /x<0, i>W, a < b, R&D, &lt;b>bold&lt;\/b> &amp;lt;/);
  assert.equal(parseDocTags(`<doctag>${tags}\n</doctag>`)[0]!.items[0]!.text, text.text, 'read back as written');
});
