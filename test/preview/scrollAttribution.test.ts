/**
 * Whose scroll is it (media/preview/scrollAttribution.ts): the view reports the user's scrolls to
 * the editor and never its own. The case CI caught: a wheel's smooth scroll whose last frames land
 * more than a second after the last wheel event (a busy machine) is still the user's, so the view's
 * final position reaches the editor.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MOMENTUM_MS, ScrollAttribution, USER_INPUT_MS } from '../../media/preview/scrollAttribution';

function clocked(): { a: ScrollAttribution; at: (ms: number) => void } {
  let t = 0;
  return { a: new ScrollAttribution(() => t), at: (ms) => (t = ms) };
}

test('a scroll with no input before it is not the user’s', () => {
  const { a, at } = clocked();
  at(5000);
  assert.equal(a.isUsers(), false);
});

test('scrolls within the input window are the user’s; a lone scroll long after is not', () => {
  const { a, at } = clocked();
  at(100);
  a.input();
  at(100 + USER_INPUT_MS);
  assert.equal(a.isUsers(), true);
  at(100 + USER_INPUT_MS + MOMENTUM_MS + 1);
  assert.equal(a.isUsers(), false, 'a gap longer than the momentum window ends the user’s scroll');
});

test('a smooth scroll that keeps animating past the input window stays the user’s to its last frame', () => {
  const { a, at } = clocked();
  at(0);
  a.input(); // the last wheel event
  // Frames every 250 ms (a busy machine) for 3 s: every one of them continues the user's scroll.
  for (let t = 250; t <= 3000; t += 250) {
    at(t);
    assert.equal(a.isUsers(), true, `frame at ${t} ms`);
  }
});

test('a self-scroll (a selected box, zoom) is not the user’s, and ends the user’s momentum', () => {
  const { a, at } = clocked();
  at(0);
  a.input();
  at(200);
  assert.equal(a.isUsers(), true);
  a.selfScroll(1000);
  at(300);
  assert.equal(a.isUsers(), false, 'inside the self-scroll window');
  at(1250 + USER_INPUT_MS); // past both windows: the earlier input no longer counts either
  assert.equal(a.isUsers(), false);
});

test('a follow of the editor interrupts the user’s momentum', () => {
  const { a, at } = clocked();
  at(0);
  a.input();
  at(USER_INPUT_MS); // the last frame inside the input window
  assert.equal(a.isUsers(), true);
  a.interrupted();
  at(USER_INPUT_MS + 100);
  assert.equal(a.isUsers(), false, 'the follow’s scroll is not continued as the user’s');
});

test('a scroll while a pointer is down (the scrollbar dragged) is the user’s however long it takes', () => {
  const { a, at } = clocked();
  at(0);
  a.pointer(true);
  at(60_000);
  assert.equal(a.isUsers(), true);
  a.pointer(false);
  at(60_000 + USER_INPUT_MS + MOMENTUM_MS + 1);
  assert.equal(a.isUsers(), false);
});

test('where a user’s scroll ends is the user’s, however late its last frames came; a self-scroll or follow is not', () => {
  const { a, at } = clocked();
  at(0);
  a.input();
  at(100);
  assert.equal(a.isUsers(), true);
  // Long frames: the next ones land past both windows and are not attributed one by one.
  at(100 + USER_INPUT_MS + MOMENTUM_MS + 500);
  assert.equal(a.isUsers(), false);
  assert.equal(a.ended(), true, 'the scroll the user started ended: report where it stopped');
  assert.equal(a.ended(), false, 'one end, one report');
  // A scroll with no input, then its end: not the user's.
  at(10_000);
  assert.equal(a.isUsers(), false);
  assert.equal(a.ended(), false);
  // The user's scroll interrupted by a follow, or a self-scroll: its end is not reported.
  a.input();
  assert.equal(a.isUsers(), true);
  a.interrupted();
  assert.equal(a.ended(), false, 'after a follow');
  a.input();
  assert.equal(a.isUsers(), true);
  a.selfScroll(500);
  assert.equal(a.ended(), false, 'after a self-scroll');
});
