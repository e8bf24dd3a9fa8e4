/**
 * Issue 41, the view: the outline of a document born structured (media/preview/outline.ts). The
 * first tests run the real converter on LibreOffice-made files (test/fixtures/office-view), take
 * the pages the view would be sent (region map → pageViewOf, as LinkedView does) and check the
 * outline's entries, their links and the entry the `.md` cursor selects.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { buildOutline, entryIndexFor, plainText, tableLabel, OUTLINE_TEXT_MAX } from '../../media/preview/outline';
import { parseHostMessage, parseViewMessage, sourceKindOf, type PageView } from '../../common/viewMessages';
import { parseSidecar, SIDECAR_VERSION } from '../../src/preview/sidecarSchema';
import type { PageResult } from '../../common/protocol';
import { convertStructured, structuredFormatOf } from '../../server/convert/structuredInput';
import { RegionMap } from '../../src/preview/regionMap';
import { pageViewOf } from '../../src/preview/pageView';

const FIXTURES = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'office-view');

/** The pages the view gets for `file`: converted, written as one `.md`, mapped, as LinkedView sends them. */
async function viewPages(file: string): Promise<{ pages: Map<number, PageView>; markdown: string; map: RegionMap }> {
  const path = join(FIXTURES, file);
  const results: PageResult[] = [];
  const summary = await convertStructured(path, path, structuredFormatOf(path)!, {}, { page: (r) => results.push(r) });
  const markdown = summary.markdown;
  const map = new RegionMap();
  let at = 0;
  for (const r of results) {
    const offset = markdown.indexOf(r.markdown, at);
    assert.ok(offset >= 0, `page ${r.page}'s Markdown is in the document's`);
    map.addPage(r, offset);
    at = offset + r.markdown.length;
  }
  map.anchor(markdown);
  return { pages: new Map(map.allPages().map((p) => [p.page, pageViewOf(p, markdown)])), markdown, map };
}

test('a Word document (LibreOffice) lists its headings and table, in order and nested, each linked', async () => {
  const { pages } = await viewPages('outline.docx');
  const entries = buildOutline(pages.values(), 'document');
  assert.deepEqual(
    entries.map((e) => [e.kind, e.level, e.text]),
    [
      ['heading', 1, 'Field Guide to Ponds'],
      ['heading', 2, 'Plants at the Edge'],
      ['table', 3, 'Table 1: Plant, Depth'],
      ['heading', 2, 'Animals in the Water'],
      // The document's own characters, not markup: the view sets them as text.
      ['heading', 3, 'Frogs <b>and</b> Toads'],
    ],
  );
  assert.ok(
    entries.every((e) => e.linked),
    'every entry links to Markdown',
  );
  // Each entry's region holds that heading's (or table's) Markdown.
  const page = pages.get(1)!;
  for (const e of entries) {
    const block = page.blocks.find((b) => b.regionId === e.regionId)!;
    assert.ok(block, `${e.text} has a Markdown block`);
    if (e.kind === 'heading') assert.match(block.markdown, /^#+ /);
    else assert.match(block.markdown, /^\| Plant \| Depth \|/);
  }
});

test('the `.md` cursor in a paragraph selects the heading of its section; in a heading, that heading', async () => {
  const { pages } = await viewPages('outline.docx');
  const entries = buildOutline(pages.values(), 'document');
  const regions = [...pages.get(1)!.regions].sort((a, b) => a.order - b.order);
  const blockOf = (id: string) => pages.get(1)!.blocks.find((b) => b.regionId === id)?.markdown ?? '';
  const reeds = regions.find((r) => blockOf(r.id).startsWith('Reeds and rushes'))!;
  const eggs = regions.find((r) => blockOf(r.id).startsWith('Frogs lay their eggs'))!;
  assert.equal(entries[entryIndexFor(entries, pages, reeds.id)]!.text, 'Plants at the Edge');
  assert.equal(entries[entryIndexFor(entries, pages, eggs.id)]!.text, 'Frogs <b>and</b> Toads');
  const table = entries.find((e) => e.kind === 'table')!;
  assert.equal(entries[entryIndexFor(entries, pages, table.regionId)], table);
  assert.equal(entryIndexFor(entries, pages, 'p9-r0'), -1, 'a region the view does not have selects nothing');
});

test('slides (PPTX by LibreOffice): one entry a slide, named by its first line', async () => {
  const { pages } = await viewPages('slides.pptx');
  const entries = buildOutline(pages.values(), 'slides');
  assert.deepEqual(
    entries.map((e) => [e.kind, e.level, e.text, e.page]),
    [
      ['slide', 1, 'Slide 1: Pond Survey Results', 1],
      ['slide', 1, 'Slide 2: Next Steps', 2],
    ],
  );
  // A list item of slide 2 selects slide 2.
  const item = pages.get(2)!.regions.find((r) => r.cls === 'list_item')!;
  assert.equal(entries[entryIndexFor(entries, pages, item.id)]!.text, 'Slide 2: Next Steps');
});

test('an Office file’s regions have no box (all zeros): the view and the sidecar take them, edits still need a box', async () => {
  const { pages, map } = await viewPages('outline.docx');
  const page1 = pages.get(1)!;
  assert.ok(page1.regions.every((r) => r.bbox.x0 === 0 && r.bbox.x1 === 0 && r.bbox.y1 === 0));
  const init = parseHostMessage({
    type: 'init',
    uri: 'file:///w/outline.md',
    version: 1,
    title: 't',
    pdfUri: 'file:///w/outline.docx',
    pages: [page1],
    converting: false,
    sourceNote: 'This Word document is shown as its outline',
  });
  assert.notEqual(typeof init, 'string', String(init));
  assert.equal(
    typeof parseHostMessage({
      type: 'init',
      uri: 'u',
      version: 1,
      title: 't',
      pdfUri: '',
      pages: [],
      converting: false,
      sourceNote: 3,
    }),
    'string',
    'a sourceNote that is not text is refused',
  );
  const sidecar = JSON.stringify({
    folio: SIDECAR_VERSION,
    pdf: 'file:///w/outline.docx',
    options: {},
    pages: map.allPages(),
  });
  const checked = parseSidecar(sidecar, '/w/outline.md', '/w');
  assert.ok('sidecar' in checked, 'problem' in checked ? checked.problem : '');
  // A box the webview sends back must be drawable.
  const edit = { type: 'editRegion', uri: 'u', version: 1, page: 1, regionId: 'p1-r0', cls: 'text' };
  assert.equal(parseViewMessage({ ...edit, bbox: { x0: 0, y0: 0, x1: 0, y1: 0 } }), 'editRegion: bad bbox');
  assert.notEqual(typeof parseViewMessage({ ...edit, bbox: { x0: 0, y0: 0, x1: 5, y1: 5 } }), 'string');
});

function page(n: number, regions: Array<[string, PageView['regions'][number]['cls'], string, number?]>): PageView {
  return {
    page: n,
    width: 600,
    height: 800,
    regions: regions.map(([id, cls, , level], order) => ({
      id,
      cls,
      bbox: { x0: 0, y0: 0, x1: 0, y1: 0 },
      grid: [0, 0, 0, 0],
      order,
      linked: true,
      ...(level !== undefined ? { level } : {}),
    })),
    blocks: regions.map(([id, , markdown]) => ({ regionId: id, markdown })),
    ocr: false,
    warnings: [],
  };
}

test('indents are relative to the top heading; a table nests under the heading before it', () => {
  const p = page(1, [
    ['p1-r0', 'table', '| a | b |\n| - | - |\n| 1 | 2 |'],
    ['p1-r1', 'section_header', '### Second level', 2],
    ['p1-r2', 'section_header', '#### Third level', 3],
    ['p1-r3', 'table', '| x |\n| - |'],
  ]);
  const entries = buildOutline([p], 'document');
  assert.deepEqual(
    entries.map((e) => [e.kind, e.level, e.text]),
    [
      ['table', 1, 'Table 1: a, b'],
      ['heading', 1, 'Second level'],
      ['heading', 2, 'Third level'],
      ['table', 3, 'Table 2: x'],
    ],
  );
  // A title is the top level: the headings under it keep theirs.
  const titled = buildOutline(
    [
      page(1, [
        ['p1-r0', 'title', '# A title'],
        ['p1-r1', 'section_header', '### Two', 2],
      ]),
    ],
    'document',
  );
  assert.deepEqual(
    titled.map((e) => [e.level, e.text]),
    [
      [1, 'A title'],
      [2, 'Two'],
    ],
  );
});

test('a heading whose Markdown was deleted leaves the outline; pages come in any order', () => {
  const p2 = page(2, [['p2-r0', 'section_header', '## Later', 1]]);
  const p1 = page(1, [
    ['p1-r0', 'section_header', '', 1],
    ['p1-r1', 'section_header', '## Kept', 1],
  ]);
  p1.regions[0]!.linked = false;
  const entries = buildOutline([p2, p1], 'document');
  assert.deepEqual(
    entries.map((e) => e.text),
    ['Kept', 'Later'],
  );
});

test('entry text is plain: Markdown marks, links, escapes and the converter HTML escapes undone; long text cut', () => {
  assert.equal(plainText('## **Bold** and _it_ and `code`'), 'Bold and it and code');
  assert.equal(plainText('See [the guide](https://example.com/x) and ![a frog](frog.png)'), 'See the guide and a frog');
  assert.equal(plainText('1\\. Not a list \\*star\\*'), '1. Not a list *star*');
  assert.equal(plainText('&lt;script&gt;alert(1)&lt;/script&gt; &amp; more'), '<script>alert(1)</script> & more');
  const long = plainText(`# ${'word '.repeat(100)}`);
  assert.equal(long.length, OUTLINE_TEXT_MAX);
  assert.ok(long.endsWith('…'));
  assert.equal(tableLabel('| **Name** | Size \\| unit |\n| - | - |', 3), 'Table 3: Name, Size | unit');
  assert.equal(tableLabel('no table here', 1), 'Table 1');
});

test('the source kind comes from the file name: slides, documents, PDFs', () => {
  assert.equal(sourceKindOf('file:///w/deck.PPTX'), 'slides');
  for (const ext of ['docx', 'xlsx', 'html', 'htm', 'md', 'csv'])
    assert.equal(sourceKindOf(`file:///w/a.${ext}`), 'document', ext);
  assert.equal(sourceKindOf('file:///w/a.pdf'), 'pdf');
  assert.equal(sourceKindOf('file:///w/a.pdf?x=.docx'), 'pdf');
  assert.equal(sourceKindOf(''), 'pdf');
});
