import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStale, parseHostMessage, parseViewMessage } from '../../common/viewMessages';

const base = { uri: 'file:///w/doc.md', version: 3 };
const box = { x0: 10, y0: 20, x1: 200, y1: 60 };

test('valid webview messages parse, keeping only known fields', () => {
  const m = parseViewMessage({
    ...base,
    type: 'reparse',
    page: 2,
    regionId: 'p2-r4',
    bbox: { ...box, extra: 1 },
    cls: 'code',
    evil: '<script>',
  });
  assert.deepEqual(m, { ...base, type: 'reparse', page: 2, regionId: 'p2-r4', bbox: box, cls: 'code' });
  assert.deepEqual(parseViewMessage({ ...base, type: 'reveal', regionId: 'p1-n0', focus: true }), {
    ...base,
    type: 'reveal',
    regionId: 'p1-n0',
    focus: true,
  });
  assert.equal(
    (parseViewMessage({ ...base, type: 'addRegion', page: 1, bbox: box, cls: 'table' }) as { type: string }).type,
    'addRegion',
  );
});

test('invalid webview messages are rejected with a reason', () => {
  const bad: unknown[] = [
    null,
    'reparse',
    { type: 'reparse' },
    { ...base, type: 'nope' },
    { ...base, version: -1, type: 'ready' },
    { ...base, uri: '', type: 'ready' },
    { ...base, type: 'reparse', page: 0, regionId: 'p1-r0', bbox: box, cls: 'text' },
    { ...base, type: 'reparse', page: 1, regionId: '../../etc', bbox: box, cls: 'text' },
    { ...base, type: 'reparse', page: 1, regionId: 'p1-r0', bbox: { ...box, x1: 5 }, cls: 'text' },
    { ...base, type: 'reparse', page: 1, regionId: 'p1-r0', bbox: { ...box, y0: NaN }, cls: 'text' },
    { ...base, type: 'reparse', page: 1, regionId: 'p1-r0', bbox: box, cls: 'script' },
    { ...base, type: 'deleteRegion', page: 1.5, regionId: 'p1-r0' },
  ];
  for (const b of bad) assert.equal(typeof parseViewMessage(b), 'string', JSON.stringify(b));
});

test('host messages are validated too', () => {
  const pageView = {
    page: 1,
    width: 612,
    height: 792,
    regions: [{ id: 'p1-r0', cls: 'text', bbox: box, grid: [1, 2, 3, 4], order: 0, linked: true }],
    blocks: [{ regionId: 'p1-r0', markdown: '<img src=x onerror=alert(1)>' }],
    ocr: false,
    warnings: [],
  };
  assert.equal(typeof parseHostMessage({ ...base, type: 'page', page: pageView }), 'object');
  assert.equal(
    typeof parseHostMessage({ ...base, type: 'page', page: { ...pageView, regions: [{ id: 'x' }] } }),
    'string',
  );
  assert.equal(typeof parseHostMessage({ ...base, type: 'highlight', regionId: 'bad id', reveal: true }), 'string');
  assert.equal(typeof parseHostMessage({ ...base, type: 'finished', cancelled: 'no', pagesDone: 1 }), 'string');
});

test('a message older than the newest version seen is stale', () => {
  assert.equal(isStale(3, 4), true);
  assert.equal(isStale(4, 4), false);
  assert.equal(isStale(5, 4), false);
});

test('the Convert button of a view on an unconverted PDF: `convert` carries nothing else; `notConverted` is a boolean', () => {
  assert.deepEqual(parseViewMessage({ ...base, type: 'convert', pdf: '/etc/passwd' }), { ...base, type: 'convert' });
  const init = { ...base, type: 'init', title: 'a.pdf', pdfUri: 'file:///w/a.pdf', pages: [], converting: false };
  assert.equal(typeof parseHostMessage({ ...init, notConverted: true }), 'object');
  assert.equal(typeof parseHostMessage({ ...init, notConverted: 'yes' }), 'string');
});

test('sharpen: a few whole pages and a bounded scale only', () => {
  assert.deepEqual(parseViewMessage({ ...base, type: 'sharpen', pages: [1, 2], scale: 3.25 }), {
    ...base,
    type: 'sharpen',
    pages: [1, 2],
    scale: 3.25,
  });
  for (const bad of [
    { pages: [], scale: 3 },
    { pages: [0], scale: 3 },
    { pages: [1.5], scale: 3 },
    { pages: [1, 2, 3, 4, 5, 6, 7], scale: 3 },
    { pages: [1], scale: 9 },
    { pages: [1], scale: 0.5 },
    { pages: '1', scale: 3 },
  ]) {
    assert.equal(typeof parseViewMessage({ ...base, type: 'sharpen', ...bad }), 'string', JSON.stringify(bad));
  }
});
