/**
 * `folio/pagePartial` through the real backend process (dist/server.js over stdio JSON-RPC) with
 * the remote VLM pointed at FakeOpenAiServer (a loopback stand-in replaying an answer as SSE
 * chunks; no real VLM server runs here): partials arrive in order, growing, each a prefix of the
 * page's final DocTags, all before that page's result; the throttle bounds their number; they stop
 * on cancel; and none are sent unless the request asks for them.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { BackendProcess } from '../helpers/backend';
import { repoRoot } from '../helpers/corpus';
import { FakeOpenAiServer } from '../vlm/fakeOpenAiServer';
import { PAGE_PARTIAL_INTERVAL_MS, type ConvertOptions } from '../../common/protocol';

const SAMPLE = join(repoRoot(), 'test', 'fixtures', 'sample.pdf');
const para = (i: number) =>
  `<text><loc_40><loc_${60 + i * 30}><loc_460><loc_${80 + i * 30}>Paragraph ${i} streamed token by token from the fake server.</text>`;
const ANSWER = `<doctag><section_header_level_1><loc_40><loc_30><loc_460><loc_50>Streaming into the preview</section_header_level_1>${[0, 1, 2, 3, 4, 5].map(para).join('')}`;

let fake: FakeOpenAiServer;
let backend: BackendProcess;
let dir: string;

before(async () => {
  fake = new FakeOpenAiServer();
  await fake.start();
  dir = mkdtempSync(join(tmpdir(), 'folio-partial-'));
  backend = await BackendProcess.start();
});
after(async () => {
  await backend.stop();
  await fake.stop();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * "Nothing arrives after the answer" is checked behind a barrier, not after a sleep: another
 * conversion with partials through the same backend, answered. Messages on the stdio connection
 * are ordered, and the backend's timers fire in order, so a stray partial of the earlier request
 * (a throttle timer left running fires at most one interval after it was set) would have arrived
 * before the barrier's answer — the barrier is checked to last longer than that. Under load the
 * barrier only gets longer.
 */
async function barrier(): Promise<void> {
  fake.mode = 'replay';
  fake.answer = ANSWER;
  fake.chunkChars = 4;
  fake.chunkDelayMs = 8;
  const t0 = Date.now();
  const run = backend.convert({ uri: SAMPLE, pages: '1', options: options(), pagePartials: true });
  assert.deepEqual((await run.result).pagesDone, [1]);
  assert.ok(run.partials.length > 0, 'the barrier streamed partials itself');
  const ms = Date.now() - t0;
  assert.ok(ms > 3 * PAGE_PARTIAL_INTERVAL_MS, `the barrier lasted ${ms} ms, more than a throttle interval`);
}

const options = (): ConvertOptions => ({
  engine: 'vlm',
  ocr: 'never',
  layoutPrior: 'off',
  cacheDir: join(dir, 'cache'),
  remoteVlm: { url: fake.url, model: 'ibm-granite/granite-docling-258M', attempts: 1 },
});

test(
  'partials reach the client in order, growing, as prefixes of the final page, before it, throttled',
  { timeout: 120_000 },
  async () => {
    fake.mode = 'replay';
    fake.answer = ANSWER;
    fake.chunkChars = 4;
    fake.chunkDelayMs = 8;
    const chunks = Math.ceil(ANSWER.length / fake.chunkChars);
    const run = backend.convert({ uri: SAMPLE, pages: '1-2', options: options(), pagePartials: true });
    const summary = await run.result;
    assert.deepEqual(summary.pagesDone, [1, 2]);
    for (const { page: final, n: finalAt } of run.pages) {
      assert.equal(final.engine, 'vlm', `page ${final.page} came from the VLM`);
      const mine = run.partials.filter((p) => p.partial.page === final.page);
      assert.ok(mine.length >= 3, `page ${final.page}: ${mine.length} partials`);
      mine.forEach((p, i) => {
        assert.equal(p.partial.seq, i + 1, 'seq counts up in arrival order');
        assert.equal(p.partial.uri, SAMPLE);
        assert.equal(p.partial.engine, 'vlm');
        assert.ok(p.n < finalAt, `page ${final.page} partial ${p.partial.seq} arrived before the page's result`);
        assert.ok(
          final.doctags.startsWith(p.partial.doctags),
          `partial ${p.partial.seq} is a prefix of the final DocTags`,
        );
        // This answer has no Markdown-special characters, so the partial Markdown is a prefix too.
        assert.ok(
          final.markdown.startsWith(p.partial.markdown),
          `partial ${p.partial.seq} Markdown ${JSON.stringify(p.partial.markdown.slice(-40))}`,
        );
        if (i > 0) assert.ok(p.partial.doctags.length > mine[i - 1].partial.doctags.length, 'text grows');
      });
      assert.match(mine.at(-1)!.partial.markdown, /^## Streaming into the preview\n\nParagraph 0/);
      // Throttle: one at once, then at most one per interval while the page streamed.
      const span = final.page === 1 ? run.pages[0].at - mine[0].at : run.pages[1].at - mine[0].at;
      const bound = Math.ceil(span / PAGE_PARTIAL_INTERVAL_MS) + 2;
      assert.ok(mine.length <= bound, `page ${final.page}: ${mine.length} partials in ${span} ms (bound ${bound})`);
      assert.ok(mine.length < chunks / 3, `${mine.length} partials for ${chunks} streamed chunks`);
      console.log(`page ${final.page}: ${chunks} SSE chunks → ${mine.length} partials over ${span} ms`);
    }
    // Nothing arrives after the answer.
    const count = run.partials.length;
    await barrier();
    assert.equal(run.partials.length, count);
  },
);

test('without pagePartials the same VLM conversion sends none', { timeout: 120_000 }, async () => {
  fake.mode = 'replay';
  fake.answer = ANSWER;
  fake.chunkChars = 4;
  fake.chunkDelayMs = 2;
  const run = backend.convert({ uri: SAMPLE, pages: '1', options: options() });
  const summary = await run.result;
  assert.deepEqual(summary.pagesDone, [1]);
  assert.equal(run.pages[0].page.engine, 'vlm');
  assert.equal(run.partials.length, 0);
  // The flag is checked like every parameter.
  await assert.rejects(
    backend.convert({ uri: SAMPLE, pages: '1', pagePartials: 'yes' as unknown as boolean }).result,
    (e: { code?: number; message?: string }) => e.code === -32602 && /pagePartials/.test(e.message ?? ''),
  );
});

test('partials stop on cancel', { timeout: 120_000 }, async () => {
  fake.mode = 'replay';
  fake.answer = `<doctag>${Array.from({ length: 40 }, (_, i) => para(i % 12)).join('')}`;
  fake.chunkChars = 4;
  fake.chunkDelayMs = 25; // about 25 s for the whole answer: the cancel lands mid-stream
  const run = backend.convert({ uri: SAMPLE, pages: '1-2', options: options(), pagePartials: true });
  await run.partialsReach(3); // streaming is under way (the test's timeout bounds the wait)
  assert.ok(run.partials.length >= 3, 'partials were streaming');
  const atCancel = run.partials.length;
  run.cancel();
  const summary = await run.result;
  assert.equal(summary.cancelled, true);
  assert.deepEqual(run.pages, [], 'the page being written was not finished');
  const atAnswer = run.partials.length;
  assert.ok(atAnswer - atCancel <= 1, `${atAnswer - atCancel} partials between the cancel and its answer`);
  await barrier();
  assert.equal(run.partials.length, atAnswer, 'no partial after the cancelled request answered');
  fake.answer = ANSWER;
});
