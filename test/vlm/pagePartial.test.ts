/**
 * The partial-page stream of server/convert/pagePartial.ts: every prefix of a streamed DocTags
 * answer converts to Markdown without tag fragments (the tolerant parser on a cut stream); the
 * throttle sends the first text at once, then at most one per interval with the newest text; and
 * nothing leaves after close() or an abort.
 */
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { pagePartialStream, partialPage, type PagePartial } from '../../server/convert/pagePartial';
import { parseDocTags } from '../../server/doctags/parse';
import { pageToMarkdown } from '../../server/doctags/markdown';

const ANSWER =
  '<doctag><section_header_level_1><loc_40><loc_30><loc_460><loc_50>Results and costs</section_header_level_1>' +
  '<text><loc_40><loc_60><loc_460><loc_90>Every token arrives as an SSE event.</text>' +
  '<unordered_list><list_item><loc_40><loc_95><loc_460><loc_105>first</list_item><list_item><loc_40><loc_106><loc_460><loc_116>second</list_item></unordered_list>' +
  '<otsl><loc_40><loc_120><loc_460><loc_200><ched>a<ched>b<nl><fcel>1<fcel>2<nl></otsl>' +
  '<formula><loc_40><loc_210><loc_460><loc_230>E = m c^2</formula></doctag>';

/**
 * The throttle's clock (setTimeout and Date.now) is node:test's mock clock, moved by `tick`: the
 * timing below is exact on any machine, however busy (no real waits).
 */
function withClock(t: { after: (fn: () => void) => void }): (ms: number) => void {
  mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
  t.after(() => mock.timers.reset());
  return (ms) => mock.timers.tick(ms);
}

test('every prefix of a streamed answer converts, without tag fragments, ending at the final page', () => {
  const body = ANSWER.replace(/^<doctag>/, '').replace(/<\/doctag>$/, '');
  let prev = '';
  let prevTags = '';
  for (let i = 0; i <= ANSWER.length; i++) {
    const { doctags, markdown } = partialPage(ANSWER.slice(0, i));
    assert.ok(!/<\/?[a-z_]|loc_\d|<\|/.test(markdown), `prefix ${i}: ${JSON.stringify(markdown.slice(-60))}`);
    assert.ok(
      body.startsWith(doctags) && doctags.length >= prevTags.length,
      `prefix ${i}: DocTags grow as a prefix of the final page's`,
    );
    prev = markdown;
    prevTags = doctags;
  }
  const final = pageToMarkdown(
    parseDocTags(ANSWER.replace(/^<doctag>/, '').replace(/<\/doctag>$/, ''))[0].items,
    {},
  ).markdown;
  assert.equal(prev, final);
  assert.match(final, /^## Results and costs\n\nEvery token/);
});

test('the throttle sends the first text at once, then at most one per interval with the newest text', (t) => {
  const tick = withClock(t);
  const got: { p: PagePartial; at: number }[] = [];
  const s = pagePartialStream(3, 'vlm', (p) => got.push({ p, at: Date.now() }), new AbortController().signal, {
    intervalMs: 100,
  });
  const t0 = Date.now();
  s.push(ANSWER.slice(0, 60));
  assert.equal(got.length, 1, 'first partial sent synchronously');
  let n = 60;
  while (Date.now() - t0 < 700) {
    n = Math.min(ANSWER.length, n + 2);
    s.push(ANSWER.slice(0, n));
    tick(2);
  }
  tick(150); // the trailing send carries the last text pushed
  s.close();
  const pushes = n - 60;
  // One at once, then one per 100 ms (while the text still grows: it stops at the answer's end).
  assert.ok(
    got.length >= 5 && got.length <= 700 / 100 + 2,
    `${got.length} partials for ~${pushes / 2} pushes in 700 ms`,
  );
  got.forEach(({ p }, i) => {
    assert.equal(p.seq, i + 1);
    assert.equal(p.page, 3);
    if (i > 0) {
      assert.ok(p.doctags.length > got[i - 1].p.doctags.length, 'growing');
      assert.ok(got[i].at - got[i - 1].at >= 100, `spacing ${got[i].at - got[i - 1].at} ms`);
    }
  });
  assert.equal(got.at(-1)!.p.doctags, partialPage(ANSWER.slice(0, n)).doctags, 'the newest text went out last');
});

test('nothing is sent after close() or an abort, even with a send pending', (t) => {
  const tick = withClock(t);
  const got: PagePartial[] = [];
  const s = pagePartialStream(1, 'vlm', (p) => got.push(p), new AbortController().signal, { intervalMs: 50 });
  s.push(ANSWER.slice(0, 80));
  s.push(ANSWER.slice(0, 90)); // pending on the timer
  s.close();
  s.push(ANSWER.slice(0, 120));
  tick(120);
  assert.equal(got.length, 1);

  const ac = new AbortController();
  const got2: PagePartial[] = [];
  const s2 = pagePartialStream(1, 'vlm', (p) => got2.push(p), ac.signal, { intervalMs: 50 });
  s2.push(ANSWER.slice(0, 80));
  s2.push(ANSWER.slice(0, 90));
  ac.abort();
  s2.push(ANSWER.slice(0, 120));
  tick(120);
  assert.equal(got2.length, 1);
});

test('the role chunk and a lone wrapper send nothing', () => {
  const got: PagePartial[] = [];
  const s = pagePartialStream(1, 'vlm', (p) => got.push(p), new AbortController().signal);
  s.push('');
  s.push('<doctag>');
  s.close();
  assert.equal(got.length, 0);
});
