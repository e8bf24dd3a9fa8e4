/**
 * The `.md` of a conversion opens after the view's first page is painted (src/preview/markdownGate.ts),
 * bounded: a slow backend after the webview is up, or a webview that never starts, no longer keeps
 * it away. Real timers, short bounds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MarkdownGate } from '../../src/preview/markdownGate';

const settled = async (p: Promise<unknown>, ms: number) =>
  Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);

test('the gate opens at the first paint, not at the webview start, and only once', async () => {
  const g = new MarkdownGate(60_000, 60_000, 60_000);
  g.webviewReady();
  assert.equal(await settled(g.opened, 50), false, 'opened at the webview start');
  g.release('painted');
  g.release('ended');
  assert.equal(await g.opened, 'painted');
  assert.ok(g.isReleased);
});

test('a page that is late after the webview started opens the gate after afterReadyMs', async () => {
  const g = new MarkdownGate(80, 60_000, 60_000);
  assert.equal(await settled(g.opened, 150), false, 'opened with no webview yet');
  const at = Date.now();
  g.webviewReady();
  g.webviewReady(); // a second `ready` (a reloaded webview) does not restart or add a timer
  assert.equal(await g.opened, 'page late');
  assert.ok(Date.now() - at >= 75, `opened ${Date.now() - at} ms after the webview was ready`);
});

test('a webview that never starts opens the gate at the limit; the end of the conversion opens it at once', async () => {
  assert.equal(await new MarkdownGate(60_000, 60_000, 60).opened, 'webview late');
  const g = new MarkdownGate(60_000, 60_000, 60_000);
  g.release('ended');
  assert.equal(await g.opened, 'ended');
});

test('once page 1 is posted only its paint bounds the wait (not the webview limit)', async () => {
  const g = new MarkdownGate(40, 120, 60);
  g.webviewReady();
  g.pagePosted();
  assert.equal(await settled(g.opened, 90), false, 'the earlier bounds still applied after the page was posted');
  assert.equal(await g.opened, 'paint late');
});
