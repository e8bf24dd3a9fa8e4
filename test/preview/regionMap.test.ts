import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PageResult, Region } from '../../common/protocol';
import { RegionMap, type TextChange } from '../../src/preview/regionMap';

/** Builds a page whose Markdown is the blocks joined by blank lines, with one region per block. */
function page(n: number, blocks: string[], furniture = false): PageResult {
  let md = '';
  const regions: Region[] = [];
  if (furniture) {
    regions.push({
      id: `p${n}-r${regions.length}`,
      cls: 'page_header',
      bbox: { x0: 50, y0: 10, x1: 500, y1: 30 },
      grid: [0, 0, 0, 0],
      order: 0,
    });
  }
  blocks.forEach((b, i) => {
    if (md) md += '\n\n';
    const start = md.length;
    md += b;
    regions.push({
      id: `p${n}-r${regions.length}`,
      cls: b.startsWith('#') ? 'section_header' : 'text',
      bbox: { x0: 72, y0: 100 + i * 50, x1: 540, y1: 140 + i * 50 },
      grid: [0, 0, 0, 0],
      order: regions.length,
      mdRange: { start, end: md.length },
    });
  });
  return {
    page: n,
    width: 612,
    height: 792,
    doctags: '',
    markdown: md,
    regions,
    engine: 'pipeline',
    ocr: false,
    warnings: [],
  };
}

/** A document of two pages, as the converter writes it (pages joined by a blank line). */
function twoPages(): { map: RegionMap; doc: string } {
  const p1 = page(1, ['# Intro', 'First paragraph here.', 'Second one.'], true);
  const p2 = page(2, ['## Next', 'Last words.']);
  const map = new RegionMap();
  map.addPage(p1, 0);
  const off2 = p1.markdown.length + 2;
  map.addPage(p2, off2);
  return { map, doc: p1.markdown + '\n\n' + p2.markdown };
}

/** Applies a change to the text and the map together, as VS Code would report it. */
function edit(state: { map: RegionMap; doc: string }, start: number, end: number, text: string): void {
  const c: TextChange = { rangeOffset: start, rangeLength: end - start, text };
  state.doc = state.doc.slice(0, start) + text + state.doc.slice(end);
  state.map.applyChange(c);
}

const textOf = (s: { map: RegionMap; doc: string }, id: string) => {
  const r = s.map.region(id)!.range;
  return r ? s.doc.slice(r.start, r.end) : undefined;
};

test('regions from page results map to their Markdown in the joined document', () => {
  const s = twoPages();
  assert.equal(textOf(s, 'p1-r1'), '# Intro');
  assert.equal(textOf(s, 'p1-r2'), 'First paragraph here.');
  assert.equal(textOf(s, 'p2-r1'), 'Last words.');
  assert.equal(s.map.region('p1-r0')!.range, undefined, 'furniture writes no Markdown, so it has no link');
  assert.equal(s.map.regionAt(s.doc.indexOf('Last'))!.id, 'p2-r1');
});

test('an edit before a region shifts it, one after leaves it alone', () => {
  const s = twoPages();
  edit(s, 2, 2, 'Big '); // "# Big Intro": inside the heading
  assert.equal(textOf(s, 'p1-r1'), '# Big Intro');
  assert.equal(textOf(s, 'p1-r2'), 'First paragraph here.');
  assert.equal(textOf(s, 'p2-r0'), '## Next');
  const at = s.doc.indexOf('Last words.') + 'Last words.'.length;
  edit(s, at, at, '\n\nA tail the user typed.');
  assert.equal(textOf(s, 'p2-r1'), 'Last words.', 'a new paragraph after the region does not join it');
});

test('typing at the end of a paragraph extends it; a block inserted before it shifts it', () => {
  const s = twoPages();
  const end = s.doc.indexOf('Second one.') + 'Second one.'.length;
  edit(s, end, end, ' More');
  assert.equal(textOf(s, 'p1-r3'), 'Second one. More');
  const start = s.doc.indexOf('Second one.');
  edit(s, start, start, 'Inserted block\n\n');
  assert.equal(textOf(s, 'p1-r3'), 'Second one. More');
});

test('deleting inside a region shrinks it; deleting all its text unlinks only that region', () => {
  const s = twoPages();
  const a = s.doc.indexOf('paragraph ');
  edit(s, a, a + 'paragraph '.length, '');
  assert.equal(textOf(s, 'p1-r2'), 'First here.');
  const b = s.doc.indexOf('Second one.');
  edit(s, b, b + 'Second one.'.length, '');
  assert.equal(s.map.region('p1-r3')!.range, undefined);
  assert.equal(textOf(s, 'p1-r2'), 'First here.');
  assert.equal(textOf(s, 'p2-r0'), '## Next');
  assert.equal(textOf(s, 'p2-r1'), 'Last words.');
});

test('a deletion spanning two regions unlinks the covered one and trims the other', () => {
  const s = twoPages();
  const a = s.doc.indexOf('here.');
  const b = s.doc.indexOf('## Next') + 3; // into the next page's heading
  edit(s, a, b, '');
  assert.equal(textOf(s, 'p1-r2'), 'First paragraph ');
  assert.equal(s.map.region('p1-r3')!.range, undefined, 'Second one. was inside the deletion');
  assert.equal(textOf(s, 'p2-r0'), 'Next');
  assert.equal(textOf(s, 'p2-r1'), 'Last words.');
});

test('replacing exactly a region’s text keeps the link (what a reparse does)', () => {
  const s = twoPages();
  const r = s.map.region('p1-r2')!.range!;
  edit(s, r.start, r.end, 'First line only.');
  assert.equal(textOf(s, 'p1-r2'), 'First line only.');
  assert.equal(textOf(s, 'p1-r3'), 'Second one.');
});

test('anchor finds regions again by content after unknown edits, and unlinks missing ones', () => {
  const s = twoPages();
  const doc = 'Preamble the user wrote\n\n' + s.doc.replace('Second one.', 'Rewritten.');
  const linked = s.map.anchor(doc);
  assert.equal(linked, 4);
  s.doc = doc;
  assert.equal(textOf(s, 'p1-r2'), 'First paragraph here.');
  assert.equal(s.map.region('p1-r3')!.range, undefined);
  assert.equal(textOf(s, 'p2-r1'), 'Last words.');
});

test('pages appended by the converter do not disturb mapped regions', () => {
  const p1 = page(1, ['# A', 'Alpha text.']);
  const map = new RegionMap();
  map.addPage(p1, 0);
  const s = { map, doc: p1.markdown };
  const p2 = page(2, ['Beta text.']);
  edit(s, s.doc.length, s.doc.length, '\n\n' + p2.markdown);
  map.addPage(p2, p1.markdown.length + 2);
  assert.equal(textOf(s, 'p1-r1'), 'Alpha text.');
  assert.equal(textOf(s, 'p2-r0'), 'Beta text.');
});

test('a drawn region gets its reading-order place and an insertion point before the next block', () => {
  const s = twoPages();
  // Between "First paragraph" (y 150) and "Second one." (y 200).
  const r = s.map.addRegion(1, { x0: 72, y0: 170, x1: 540, y1: 190 }, 'text');
  assert.match(r.id, /^p1-n\d+$/);
  const ordered = s.map.page(1)!.regions.map((x) => x.id);
  assert.deepEqual(ordered, ['p1-r0', 'p1-r1', 'p1-r2', r.id, 'p1-r3']);
  const ip = s.map.insertionPoint(r.id, s.doc.length);
  assert.equal(ip.before, true);
  assert.equal(ip.offset, s.doc.indexOf('Second one.'));
  s.map.removeRegion(r.id);
  assert.equal(s.map.region(r.id), undefined);
  assert.deepEqual(
    s.map.page(1)!.regions.map((x) => x.order),
    [0, 1, 2, 3],
  );
});

test('captured texts let a later anchor find regions the user edited', () => {
  const s = twoPages();
  const at = s.doc.indexOf('Second one.') + 'Second'.length;
  edit(s, at, at, ' edited');
  s.map.captureTexts(s.doc);
  const moved = 'New first block\n\n' + s.doc;
  assert.equal(s.map.anchor(moved), 5, 'all five blocks are found again');
  s.doc = moved;
  assert.equal(textOf(s, 'p1-r3'), 'Second edited one.');
});
