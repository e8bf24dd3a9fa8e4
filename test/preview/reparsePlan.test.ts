import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PageResult } from '../../common/protocol';
import { RegionMap } from '../../src/preview/regionMap';
import { planReparse } from '../../src/preview/reparsePlan';

/** One page: "# Head" then two paragraphs, as the converter writes it. */
function setup(): { map: RegionMap; doc: string } {
  const md = '# Head\n\nFirst para.\n\nSecond para.';
  const r = (i: number, start: number, end: number, y: number) => ({
    id: `p1-r${i}`,
    cls: 'text' as const,
    bbox: { x0: 72, y0: y, x1: 500, y1: y + 30 },
    grid: [0, 0, 0, 0] as [number, number, number, number],
    order: i,
    mdRange: { start, end },
  });
  const page: PageResult = {
    page: 1,
    width: 612,
    height: 792,
    doctags: '',
    markdown: md,
    engine: 'pipeline',
    ocr: false,
    warnings: [],
    regions: [r(0, 0, 6, 80), r(1, 8, 19, 120), r(2, 21, 33, 200)],
  };
  const map = new RegionMap();
  map.addPage(page, 0);
  return { map, doc: md };
}

test('an answer for an unchanged document replaces exactly the region', () => {
  const { map, doc } = setup();
  const plan = planReparse(map, 'p1-r1', {
    requestVersion: 4,
    currentVersion: 4,
    wasLinked: true,
    markdown: 'First.\n',
    docLength: doc.length,
  });
  assert.deepEqual(plan, { kind: 'replace', start: 8, end: 19, text: 'First.', reanchored: false });
});

test('edits made while the backend worked move the target (re-anchored), not the old offsets', () => {
  const { map, doc } = setup();
  map.applyChange({ rangeOffset: 0, rangeLength: 0, text: 'Intro the user typed.\n\n' });
  const now = 'Intro the user typed.\n\n' + doc;
  const plan = planReparse(map, 'p1-r2', {
    requestVersion: 4,
    currentVersion: 5,
    wasLinked: true,
    markdown: 'Second.',
    docLength: now.length,
  });
  assert.equal(plan.kind, 'replace');
  if (plan.kind !== 'replace') return;
  assert.equal(now.slice(plan.start, plan.end), 'Second para.');
  assert.equal(plan.reanchored, true);
});

test('a region whose text was deleted meanwhile, or that was deleted, is dropped with a message', () => {
  const { map, doc } = setup();
  map.applyChange({ rangeOffset: 8, rangeLength: 11, text: '' });
  const gone = planReparse(map, 'p1-r1', {
    requestVersion: 4,
    currentVersion: 5,
    wasLinked: true,
    markdown: 'x',
    docLength: doc.length - 11,
  });
  assert.equal(gone.kind, 'drop');
  map.removeRegion('p1-r2');
  const removed = planReparse(map, 'p1-r2', {
    requestVersion: 4,
    currentVersion: 6,
    wasLinked: true,
    markdown: 'x',
    docLength: 0,
  });
  assert.equal(removed.kind, 'drop');
  assert.match((removed as { reason: string }).reason, /deleted/);
});

test('a drawn region is inserted before the next block in reading order', () => {
  const { map, doc } = setup();
  const r = map.addRegion(1, { x0: 72, y0: 160, x1: 500, y1: 180 }, 'code');
  const plan = planReparse(map, r.id, {
    requestVersion: 4,
    currentVersion: 4,
    wasLinked: false,
    markdown: '```\ncode\n```',
    docLength: doc.length,
  });
  assert.deepEqual(plan, {
    kind: 'insert',
    offset: doc.indexOf('Second para.'),
    text: '```\ncode\n```\n\n',
    start: doc.indexOf('Second para.'),
    block: '```\ncode\n```',
  });
  const empty = planReparse(map, r.id, {
    requestVersion: 4,
    currentVersion: 4,
    wasLinked: false,
    markdown: '  ',
    docLength: doc.length,
  });
  assert.equal(empty.kind, 'drop');
});
