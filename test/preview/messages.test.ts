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

test('first paint and scroll sync messages: pages, fractions 0–1 and region ids checked; progress within its total', () => {
  assert.deepEqual(parseViewMessage({ ...base, type: 'ready', scriptMs: 84.5 }), {
    ...base,
    type: 'ready',
    scriptMs: 84.5,
  });
  assert.deepEqual(parseViewMessage({ ...base, type: 'ready', scriptMs: 'soon' }), { ...base, type: 'ready' });
  assert.deepEqual(parseViewMessage({ ...base, type: 'painted', page: 1, extra: 1 }), {
    ...base,
    type: 'painted',
    page: 1,
  });
  assert.deepEqual(parseViewMessage({ ...base, type: 'scrolled', regionId: 'p3-r2', fraction: 0.25 }), {
    ...base,
    type: 'scrolled',
    regionId: 'p3-r2',
    fraction: 0.25,
  });
  for (const bad of [
    { type: 'painted', page: 0 },
    { type: 'scrolled', regionId: 'p3-r2', fraction: 1.5 },
    { type: 'scrolled', regionId: 'p3-r2', fraction: Number.NaN },
    { type: 'scrolled', regionId: '#page-3', fraction: 0 },
  ])
    assert.equal(typeof parseViewMessage({ ...base, ...bad }), 'string', JSON.stringify(bad));

  assert.equal(
    (parseHostMessage({ ...base, type: 'progress', done: 0, total: 300 }) as { type: string }).type,
    'progress',
  );
  assert.equal(typeof parseHostMessage({ ...base, type: 'progress', done: 4, total: 3 }), 'string');
  assert.equal(typeof parseHostMessage({ ...base, type: 'progress', done: -1, total: 3 }), 'string');
  assert.deepEqual(parseHostMessage({ ...base, type: 'scrollTo', regionId: 'p1-r0', fraction: 1, more: 2 }), {
    ...base,
    type: 'scrollTo',
    regionId: 'p1-r0',
    fraction: 1,
  });
  assert.equal(typeof parseHostMessage({ ...base, type: 'scrollTo', regionId: 'p1-r0', fraction: -0.1 }), 'string');
  const init = { ...base, type: 'init', title: 't', pdfUri: 'file:///w/doc.pdf', pages: [], converting: true };
  assert.equal((parseHostMessage({ ...init, progress: { done: 0, total: 2 } }) as { type: string }).type, 'init');
  assert.equal(typeof parseHostMessage({ ...init, progress: { done: 3, total: 2 } }), 'string');
});
