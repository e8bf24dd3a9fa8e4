/**
 * The parser, serializer and Markdown converter against docling's own output in the shared
 * corpus (`docling/**\/*.doctags.txt` with the `.md` docling wrote beside each).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { corpusPath } from '../helpers/corpus';
import { parseDocTags } from '../../server/doctags/parse';
import { serializeDocument } from '../../server/doctags/serialize';
import { documentToMarkdown } from '../../server/doctags/markdown';
// The eval room's bit-parallel edit distance (tested there against a reference implementation).
import { normalizedEditDistance } from '../../eval/metrics/levenshtein';

function doctagsFiles(sub: string): string[] {
  const dir = corpusPath(join('docling', sub));
  return readdirSync(dir)
    .filter((f) => f.endsWith('.doctags.txt'))
    .map((f) => join(dir, f));
}

const ALL = [...doctagsFiles('pdf'), ...doctagsFiles('gt_without_pdf')];
const ELEMENT_OPEN =
  /<(title|text|caption|footnote|formula|list_item|code|picture|chart|otsl|page_header|page_footer|checkbox_selected|checkbox_unselected|section_header_level_\d+)><loc_/g;

test('every corpus DocTags file parses into its elements, pages and tables', () => {
  assert.ok(ALL.length >= 14, `expected the 14 DocTags files of the corpus, found ${ALL.length}`);
  for (const f of ALL) {
    const src = readFileSync(f, 'utf8');
    const pages = parseDocTags(src);
    assert.equal(pages.length, (src.match(/<page_break>/g) ?? []).length + 1, f);
    const items = pages.flatMap((p) => p.items);
    const parsed = items.length + items.filter((i) => i.caption).length;
    assert.equal(parsed, (src.match(ELEMENT_OPEN) ?? []).length, `${f}: every element with a location is one item`);
    for (const it of items) {
      assert.ok(it.grid, `${f}: ${it.cls} "${it.text.slice(0, 40)}" has its location`);
      assert.ok(
        !/<loc_|<\/?(text|list_item|otsl|fcel|nl)>/.test(it.text),
        `${f}: markup leaked into text: ${it.text.slice(0, 80)}`,
      );
    }
    // OTSL: rows of equal width and as many rows as <nl> tokens.
    const tables = items.filter((i) => i.cls === 'table');
    assert.equal(tables.length, (src.match(/<otsl>/g) ?? []).length, f);
    const nl = (src.match(/<nl>/g) ?? []).length;
    assert.equal(
      tables.reduce((s, t) => s + t.table!.length, 0) +
        items.filter((i) => i.cls !== 'table' && i.table).reduce((s, t) => s + t.table!.length, 0),
      nl,
      f,
    );
  }
});

test('text that merely contains DocTags-like words stays text (`<table>`, `<td>`, `<>`)', () => {
  const src = readFileSync(corpusPath('docling/gt_without_pdf/2305.03393v1.doctags.txt'), 'utf8');
  const all = parseDocTags(src).flatMap((p) => p.items.map((i) => i.text));
  assert.ok(
    all.some((t) => t.includes('the HTML tokens <table> , </table> , <tr> , </tr> , <td> and </td> , one can')),
  );
  const redp = parseDocTags(readFileSync(corpusPath('docling/pdf/redp5110_sampled.doctags.txt'), 'utf8')).flatMap(
    (p) => p.items,
  );
  assert.ok(redp.some((i) => i.text.includes('SESSION_USER <> EMPLOYEES . USER_ID')));
});

test("serialize(parse(x)) gives back docling's file byte for byte (single-box items)", () => {
  let identical = 0;
  for (const f of ALL) {
    const src = readFileSync(f, 'utf8');
    const pages = parseDocTags(src).map((p) => p.items);
    const again = serializeDocument(pages);
    // Items docling split over two boxes (8 location tokens) keep only the first box here.
    if (/(<loc_\d+>){5}/.test(src)) {
      assert.deepEqual(
        parseDocTags(again).map((p) => p.items),
        pages,
        f,
      );
      continue;
    }
    assert.equal(again, src, f);
    identical++;
  }
  assert.ok(identical >= 9, `byte-identical files: ${identical}`);
});

test("Markdown of each docling/pdf and gt_without_pdf DocTags is close to docling's Markdown", (t) => {
  const figures: string[] = [];
  for (const f of [...doctagsFiles('pdf'), ...doctagsFiles('gt_without_pdf')]) {
    const want = readFileSync(f.replace(/\.doctags\.txt$/, '.md'), 'utf8').trim();
    const got = documentToMarkdown(parseDocTags(readFileSync(f, 'utf8')).map((p) => p.items)).trim();
    const name = f.split('/').pop()!;
    if (name.startsWith('2305.03393v1-pg9')) {
      // The one table with merged cells: Folio writes HTML with colspan/rowspan where docling
      // repeats the spanned text in a pipe table. Compare the rest, and check the spans.
      assert.match(got, /<th colspan="3">TEDs<\/th>/);
      assert.match(got, /<th rowspan="2"># enc-layers<\/th>/);
      const strip = (s: string) =>
        s.replace(/<table>[\s\S]*?<\/table>|(^\|.*\|$\n?)+/gm, '').replace(/\n{3,}/g, '\n\n');
      const d = normalizedEditDistance(strip(got), strip(want));
      figures.push(
        `${name} ${d.toFixed(4)} (without the table; with it ${normalizedEditDistance(got, want).toFixed(4)})`,
      );
      assert.ok(d <= 0.02, `${name}: ${d}`);
      continue;
    }
    const d = normalizedEditDistance(got, want);
    figures.push(`${name} ${d.toFixed(4)}`);
    assert.ok(d <= 0.1, `${name}: normalized edit distance ${d}`);
  }
  t.diagnostic('normalized edit distance to docling .md: ' + figures.join('; '));
});
