/**
 * parse(serialize(items)) gives back the items (class, grid, text, level, list kind, language,
 * table, caption) for random pages, including text with `<`, `&`, non-DocTags tags and
 * line breaks in code. A seeded generator keeps failures reproducible.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DocItem, OtslCell } from '../../server/model/items';
import type { GridBox, RegionClass } from '../../common/protocol';
import { serializeDocument, serializeItem, serializePage } from '../../server/doctags/serialize';
import { parseDocTags } from '../../server/doctags/parse';
import { mulberry32 } from '../../server/util/random';

const rng = mulberry32;

const WORDS = [
  'alpha',
  'Beta',
  '3.14',
  'a < b',
  'x&y',
  '<td>',
  '<script>',
  'naïve',
  'ﬁ',
  '—',
  '"q"',
  'C#',
  '|',
  '*',
  '_',
  '日本語',
  'مرحبا',
  '$5',
];
const CLASSES: RegionClass[] = [
  'title',
  'section_header',
  'text',
  'list_item',
  'caption',
  'footnote',
  'formula',
  'code',
  'picture',
  'table',
  'page_header',
  'page_footer',
  'checkbox_selected',
  'checkbox_unselected',
];

function makeItem(r: () => number): DocItem {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(' ');
  const x0 = Math.floor(r() * 400);
  const y0 = Math.floor(r() * 400);
  const grid: GridBox = [x0, y0, x0 + Math.floor(r() * 99), y0 + Math.floor(r() * 99)];
  const cls = pick(CLASSES);
  const item: DocItem = { cls, grid, text: words(1 + Math.floor(r() * 8)) };
  const caption = (): DocItem => ({ cls: 'caption', grid: [1, 2, 3, 4], text: 'Figure ' + words(3) });
  switch (cls) {
    case 'section_header':
      item.level = 1 + Math.floor(r() * 5);
      break;
    case 'list_item':
      item.level = Math.floor(r() * 3);
      item.ordered = r() < 0.5;
      break;
    case 'code':
      item.text = 'def f(x):\n    return x < 1  # ' + words(2);
      if (r() < 0.5) item.language = pick(['Python', 'JavaScript', 'C++']);
      if (r() < 0.5) item.caption = caption();
      break;
    case 'picture':
      item.text = '';
      if (r() < 0.5) item.caption = caption();
      break;
    case 'table': {
      item.text = '';
      const w = 1 + Math.floor(r() * 4);
      const h = 1 + Math.floor(r() * 4);
      const rows: OtslCell[][] = [];
      for (let i = 0; i < h; i++) {
        const row: OtslCell[] = [];
        for (let j = 0; j < w; j++) {
          const tag = i === 0 ? 'ched' : pick(['fcel', 'fcel', 'ecel', 'lcel', 'ucel', 'xcel', 'rhed'] as const);
          row.push({
            tag,
            text: tag === 'fcel' || tag === 'ched' || tag === 'rhed' ? words(1 + Math.floor(r() * 2)) : '',
          });
        }
        rows.push(row);
      }
      item.table = rows;
      if (r() < 0.5) item.caption = caption();
      break;
    }
  }
  return item;
}

/** Only the fields the round trip must keep, in a canonical shape. */
function canon(it: DocItem): object {
  return {
    cls: it.cls,
    grid: it.grid,
    text: it.text,
    level: it.cls === 'section_header' || it.cls === 'list_item' ? it.level : undefined,
    ordered: it.cls === 'list_item' ? it.ordered === true : undefined,
    language: it.language,
    table: it.table,
    caption: it.caption ? { text: it.caption.text, grid: it.caption.grid } : undefined,
  };
}

test('random pages survive serialize → parse', () => {
  const r = rng(20261122);
  for (let n = 0; n < 300; n++) {
    const pages = Array.from({ length: 1 + Math.floor(r() * 3) }, () =>
      Array.from({ length: Math.floor(r() * 12) }, () => makeItem(r)),
    );
    // A list's depth can only grow one level at a time in a serialized list.
    for (const p of pages) {
      let prev = -1;
      for (const it of p) {
        if (it.cls !== 'list_item') prev = -1;
        else prev = it.level = Math.min(it.level!, prev + 1);
      }
    }
    const src = serializeDocument(pages);
    const back = parseDocTags(src);
    assert.equal(back.length, pages.length, src);
    back.forEach((p, i) => assert.deepEqual(p.items.map(canon), pages[i]!.map(canon), src));
  }
});

test('single items and pages without the document wrapper', () => {
  const item: DocItem = { cls: 'section_header', level: 2, grid: [10, 20, 30, 40], text: 'Results' };
  assert.equal(
    serializeItem(item),
    '<section_header_level_2><loc_10><loc_20><loc_30><loc_40>Results</section_header_level_2>',
  );
  const page = serializePage([
    { cls: 'list_item', text: 'a', grid: [1, 1, 2, 2] },
    { cls: 'list_item', text: 'b', level: 1, ordered: true, grid: [1, 1, 2, 2] },
    { cls: 'text', text: 'after' },
  ]);
  assert.equal(
    page,
    '<unordered_list><list_item><loc_1><loc_1><loc_2><loc_2>a</list_item>\n<ordered_list><list_item><loc_1><loc_1><loc_2><loc_2>b</list_item>\n</ordered_list>\n</unordered_list>\n<text>after</text>',
  );
  assert.ok(!page.includes('<doctag>') && !page.includes('<page_break>'));
  assert.deepEqual(
    parseDocTags(page)[0]!.items.map((i) => [i.cls, i.level, i.ordered ?? null, i.text]),
    [
      ['list_item', 0, false, 'a'],
      ['list_item', 1, true, 'b'],
      ['text', undefined, null, 'after'],
    ],
  );
});

test('code language token as docling writes it', () => {
  assert.equal(serializeItem({ cls: 'code', text: 'x', language: 'Python' }), '<code><_Python_>x</code>');
  assert.equal(serializeItem({ cls: 'code', text: 'x' }), '<code><_unknown_>x</code>');
  assert.equal(parseDocTags('<code><_unknown_>x</code>')[0]!.items[0]!.language, undefined);
  assert.equal(parseDocTags('<code><loc_1><loc_2><loc_3><loc_4><_Java_>int a;</code>')[0]!.items[0]!.language, 'Java');
});
