import { test } from 'node:test';
import assert from 'node:assert/strict';
// scrollSync.ts's ScrollLink needs the `vscode` module at load; its pure parts need nothing of it.
import '../helpers/vscodeFake';
import { EchoGuard, lineInSpan, regionAtLine, type LineSpan } from '../../src/preview/scrollSync';
import { FirstPaintTrace } from '../../src/preview/firstPaint';
import { pageProgressMessage, parsePageProgress } from '../../common/protocol';

// A heading (line 0), a four-line paragraph (2–5), text no region owns (7–8), a table (10–14).
const spans: LineSpan[] = [
  { id: 'p1-r0', start: 0, end: 0 },
  { id: 'p1-r1', start: 2, end: 5 },
  { id: 'p2-r0', start: 10, end: 14 },
];

test('editor → view: the top line maps to its region and how far through its lines it is', () => {
  assert.deepEqual(regionAtLine(spans, 0), { id: 'p1-r0', fraction: 0 });
  assert.deepEqual(regionAtLine(spans, 2), { id: 'p1-r1', fraction: 0 });
  assert.deepEqual(regionAtLine(spans, 4), { id: 'p1-r1', fraction: 0.5 });
  assert.deepEqual(regionAtLine(spans, 12), { id: 'p2-r0', fraction: 0.4 });
  // Between regions (a blank line, the user's own text): the next region, from its start.
  assert.deepEqual(regionAtLine(spans, 1), { id: 'p1-r1', fraction: 0 });
  assert.deepEqual(regionAtLine(spans, 8), { id: 'p2-r0', fraction: 0 });
  // Past the last region: its end; no regions: nothing.
  assert.deepEqual(regionAtLine(spans, 40), { id: 'p2-r0', fraction: 1 });
  assert.equal(regionAtLine([], 3), undefined);
  // Above the first region (a title the user added): the first region.
  assert.deepEqual(regionAtLine([{ id: 'p1-r3', start: 5, end: 6 }], 1), { id: 'p1-r3', fraction: 0 });
});

test('view → editor: a point of a region maps back to the line it came from', () => {
  const para = spans[1]!;
  assert.equal(lineInSpan(para, 0), 2);
  assert.equal(lineInSpan(para, 0.5), 4);
  assert.equal(lineInSpan(para, 0.99), 5);
  assert.equal(lineInSpan(para, 1), 5, 'the end of the box is the last line, not the next region');
  assert.equal(lineInSpan(para, -3), 2);
  // Round trip: every line of a region comes back to itself.
  for (let line = 10; line <= 14; line++) {
    const at = regionAtLine(spans, line)!;
    assert.equal(
      lineInSpan(
        spans.find((s) => s.id === at.id)!,
        at.fraction,
      ),
      line,
    );
  }
});

test('echo guard: the scroll the sync caused is not followed back, even late; the user’s next one is', () => {
  let now = 1000;
  const guard = new EchoGuard(3000, 1500, () => now);
  assert.equal(guard.isEcho(12), false, 'nothing moved yet');
  guard.moving(12);
  now += 1200; // a busy machine: the editor's answer comes late
  assert.equal(guard.isEcho(12), true, 'the editor arriving where the sync put it');
  assert.equal(guard.isEcho(14), true, '±2 lines (wrapped lines, sticky headings)');
  assert.equal(guard.isEcho(40), false, 'the user scrolled elsewhere');
  assert.equal(guard.isEcho(12), false, 'after that, back at the line is the user’s too');
  guard.moving(30);
  now += 3001;
  assert.equal(guard.isEcho(30), false, 'after the settle time, a scroll is the user’s');
  guard.moving();
  assert.equal(guard.isEcho(99), true, 'a reveal (place not known): every scroll in its window');
  assert.equal(guard.isEcho(5), true);
  now += 1501;
  assert.equal(guard.isEcho(99), false);
});

test('first-paint trace: one line with each step once, from the start and after the backend’s page', () => {
  let now = 5000;
  const real = Date.now;
  Date.now = () => now;
  try {
    const trace = new FirstPaintTrace('paper.pdf');
    now += 40;
    trace.mark('panel created');
    now += 500;
    trace.mark('webview ready');
    now += 900;
    trace.mark('page 1 from the backend');
    trace.mark('panel created'); // a second time: kept at its first
    now += 30;
    trace.mark('page 1 posted');
    now += 120;
    const line = trace.painted(1);
    assert.equal(
      line,
      '[info] preview: paper.pdf: first page on screen (from the command: panel created +40 ms, webview ready +540 ms, page 1 from the backend +1440 ms, page 1 posted +1470 ms, page 1 image painted +1590 ms; 150 ms after the backend had the page)',
    );
    assert.equal(trace.painted(1), undefined, 'logged once');
  } finally {
    Date.now = real;
  }
});

test('page progress: the backend’s "page i/N" message reads back as numbers; other messages do not', () => {
  assert.deepEqual(parsePageProgress(pageProgressMessage(0, 300)), { done: 0, total: 300 });
  assert.deepEqual(parsePageProgress(pageProgressMessage(7, 12)), { done: 7, total: 12 });
  assert.equal(parsePageProgress('downloading model 3/5'), undefined);
  assert.equal(parsePageProgress(undefined), undefined);
});
