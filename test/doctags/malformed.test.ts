/**
 * Damaged DocTags (what a VLM that stops early or loses track writes): the parser never throws,
 * and keeps what can be kept.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { corpusPath } from '../helpers/corpus';
import { parseDocTags } from '../../server/doctags/parse';
import { documentToMarkdown } from '../../server/doctags/markdown';

const items = (s: string) => parseDocTags(s).flatMap((p) => p.items);

test('unclosed elements keep their text and are closed by the next element', () => {
  const got = items(
    '<doctag><text><loc_1><loc_2><loc_3><loc_4>first paragraph<section_header_level_1><loc_5><loc_6><loc_7><loc_8>Next</section_header_level_1><text><loc_1><loc_2><loc_3><loc_4>cut off mid-sen',
  );
  assert.deepEqual(
    got.map((i) => [i.cls, i.text]),
    [
      ['text', 'first paragraph'],
      ['section_header', 'Next'],
      ['text', 'cut off mid-sen'],
    ],
  );
});

test('truncated location tokens and tags are dropped, not shown', () => {
  assert.deepEqual(
    items('<text><loc_1><loc_2><loc_').map((i) => [i.text, i.grid]),
    [['', undefined]],
  );
  assert.deepEqual(
    items('<text><loc_12<loc_2>abc</text>').map((i) => i.text),
    ['abc'],
  );
  assert.deepEqual(
    items('<text><loc_1><loc_2><loc_3><loc_4>abc</tex').map((i) => [i.text, i.grid]),
    [['abc', [1, 2, 3, 4]]],
  );
  assert.deepEqual(
    items('<text>abc</text><sect').map((i) => i.text),
    ['abc'],
  );
});

test('unknown tags and `<` in text are literal text', () => {
  const got = items('<text><loc_1><loc_2><loc_3><loc_4>if a < b and <script>alert(1)</script> <foo> x</text>');
  assert.equal(got.length, 1);
  assert.equal(got[0]!.text, 'if a < b and <script>alert(1)</script> <foo> x');
  const md = documentToMarkdown([got]);
  assert.ok(!md.includes('<script>') && md.includes('&lt;script>'), md);
});

test('mismatched closing tag, stray closes, missing </doctag>, nested list inside an item', () => {
  const got = items(
    '</unordered_list></text><doctag><title><loc_1><loc_1><loc_2><loc_2>T</text>\n<unordered_list><list_item><loc_1><loc_1><loc_2><loc_2>a<unordered_list><list_item><loc_1><loc_1><loc_2><loc_2>a.1</list_item></unordered_list></list_item><list_item><loc_1><loc_1><loc_2><loc_2>b</list_item>',
  );
  assert.deepEqual(
    got.map((i) => [i.cls, i.text, i.level ?? null]),
    [
      ['title', 'T', null],
      ['list_item', 'a', 0],
      ['list_item', 'a.1', 1],
      ['list_item', 'b', 0],
    ],
  );
});

test('OTSL: caption inside, ragged rows, cells without <otsl>, truncated table', () => {
  const [t] = items(
    '<otsl><loc_1><loc_2><loc_3><loc_4><ched>A<ched>B<nl><fcel>1<nl><caption><loc_5><loc_6><loc_7><loc_8>Table 1</caption></otsl>',
  );
  assert.equal(t!.cls, 'table');
  assert.deepEqual(t!.table, [
    [
      { tag: 'ched', text: 'A' },
      { tag: 'ched', text: 'B' },
    ],
    [{ tag: 'fcel', text: '1' }],
  ]);
  assert.deepEqual(t!.caption, { cls: 'caption', text: 'Table 1', grid: [5, 6, 7, 8] });
  assert.match(documentToMarkdown([[t!]]), /\| 1 \| {2}\|/);
  const [bare] = items('<fcel>x<fcel>y<nl>');
  assert.equal(bare!.cls, 'table');
  assert.equal(bare!.table![0]!.length, 2);
  const [cut] = items('<otsl><loc_1><loc_2><loc_3><loc_4><fcel>a<fcel>b<nl><fcel>c<fc');
  assert.deepEqual(
    cut!.table!.map((r) => r.map((c) => c.text)),
    [['a', 'b'], ['c']],
  );
});

test('page breaks make pages, even empty ones', () => {
  const pages = parseDocTags('<doctag><text>a</text><page_break><page_break><text>b</text></doctag>');
  assert.deepEqual(
    pages.map((p) => [p.page, p.items.length]),
    [
      [1, 1],
      [2, 0],
      [3, 1],
    ],
  );
  assert.deepEqual(parseDocTags(''), []);
  assert.deepEqual(parseDocTags('   \n'), []);
});

function corpusSources(): string[] {
  return [
    'docling/pdf/2305.03393v1-pg9.doctags.txt',
    'docling/pdf/code_and_formula.doctags.txt',
    'docling/pdf/table_mislabeled_as_picture.doctags.txt',
  ].map((f) => readFileSync(corpusPath(f), 'utf8'));
}

test('fuzz: real DocTags truncated at every 7th offset never throws and never leaks markup', () => {
  let runs = 0;
  for (const src of corpusSources()) {
    for (let cut = 0; cut <= src.length; cut += 7) {
      const pages = parseDocTags(src.slice(0, cut));
      // parseDocTags answers [] if its internals ever threw: content in, pages out.
      if (cut > 40) assert.ok(pages.length > 0 && pages[0]!.items.length > 0, `cut ${cut}`);
      const md = documentToMarkdown(pages.map((p) => p.items));
      runs++;
      assert.ok(!/<loc_|<\/?(fcel|ched|nl|list_item|otsl)>/.test(md), `cut ${cut}: ${md.slice(-200)}`);
    }
  }
  assert.ok(runs > 1000);
});

test('fuzz: shuffled, dropped and duplicated tokens never throw', () => {
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  for (const src of corpusSources()) {
    const parts = src.split(/(?=<)/);
    for (let n = 0; n < 200; n++) {
      const p = parts.slice();
      for (let k = 0; k < 1 + (n % 20); k++) {
        const i = Math.floor(rand() * p.length);
        const j = Math.floor(rand() * p.length);
        const op = rand();
        if (op < 0.4) [p[i], p[j]] = [p[j]!, p[i]!];
        else if (op < 0.7) p.splice(i, 1);
        else p.splice(i, 0, p[j]!);
      }
      const pages = parseDocTags(p.join(''));
      // parseDocTags answers [] if its internals ever threw: content in, pages out.
      assert.ok(pages.length > 0);
      documentToMarkdown(pages.map((x) => x.items));
    }
  }
});
