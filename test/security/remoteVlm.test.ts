/**
 * Issue 21 item 5: the remote VLM's answers are bounded and its address must be https:// off
 * this machine. The server is FakeOpenAiServer (test/vlm/fakeOpenAiServer.ts: no real
 * OpenAI-compatible server with granite-docling runs here), driven into the hostile answers:
 * an endless body, one endless SSE line, a token every 100 ms forever, a redirect. Before the
 * fix the client read them without bound (the issue measured 8 GB in 25 s) and the idle timer
 * restarted on every chunk, so a trickle never ended; http:// to any host was used with the key.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { FakeOpenAiServer } from '../vlm/fakeOpenAiServer';
import { RemoteVlmClient } from '../../server/vlm/remoteClient';
import { checkOptions } from '../../server/convert/checkParams';
import { parseConvertArgs } from '../../server/convertCommand/args';

let fake: FakeOpenAiServer;
const png = Buffer.from('89504e470d0a1a0a', 'hex');
const settings = (extra: object = {}) => ({
  url: fake.url,
  model: 'ibm-granite/granite-docling-258M',
  apiKey: 'sk-test',
  attempts: 1,
  ...extra,
});

before(async () => {
  fake = new FakeOpenAiServer();
  await fake.start();
});
after(() => fake.stop());

/** Peak growth of this process's RSS while `fn` runs, MB. */
async function rssGrowth<T>(fn: () => Promise<T>): Promise<{ value: T | Error; growthMb: number; ms: number }> {
  const base = process.memoryUsage().rss;
  let peak = base;
  const poll = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const t = Date.now();
  try {
    return { value: await fn(), growthMb: Math.round((peak - base) / 1024 / 1024), ms: Date.now() - t };
  } catch (e) {
    return { value: e as Error, growthMb: Math.round((peak - base) / 1024 / 1024), ms: Date.now() - t };
  } finally {
    clearInterval(poll);
  }
}

test('an endless body is cut at the byte cap', { timeout: 60_000 }, async () => {
  fake.mode = 'flood';
  const r = await rssGrowth(() =>
    new RemoteVlmClient(settings({ timeoutMs: 30_000 })).complete(png, 'Convert this page to docling.'),
  );
  assert.ok(r.value instanceof Error, 'refused');
  assert.match(r.value.message, /the answer passed 16 MB, more than a page can need/);
  assert.ok(r.growthMb < 200, `RSS grew ${r.growthMb} MB`);
  process.stdout.write(`# flood: refused after ${r.ms} ms, RSS +${r.growthMb} MB\n`);
});

test('one endless SSE line is cut at the line cap', { timeout: 60_000 }, async () => {
  fake.mode = 'longline';
  const r = await rssGrowth(() =>
    new RemoteVlmClient(settings({ timeoutMs: 30_000 })).complete(png, 'Convert this page to docling.'),
  );
  assert.ok(r.value instanceof Error, 'refused');
  assert.match(r.value.message, /a stream line longer than 1 MB/);
  assert.ok(r.growthMb < 100, `RSS grew ${r.growthMb} MB`);
});

test('a trickle of tokens ends at the total time limit (chunks do not restart it)', { timeout: 60_000 }, async () => {
  fake.mode = 'trickle';
  const r = await rssGrowth(() =>
    new RemoteVlmClient(settings({ timeoutMs: 1500 })).complete(png, 'Convert this page to docling.'),
  );
  assert.ok(r.value instanceof Error, 'refused');
  assert.match(r.value.message, /no complete answer within 1\.5 s/);
  process.stdout.write(`# trickle: stopped after ${r.ms} ms (limit 1500 ms)\n`);
});

test('a redirect is not followed', { timeout: 60_000 }, async () => {
  fake.mode = 'redirect';
  const r = await rssGrowth(() => new RemoteVlmClient(settings()).complete(png, 'Convert this page to docling.'));
  assert.ok(r.value instanceof Error);
  assert.match(r.value.message, /redirect \(HTTP 307\) to http:\/\/192\.0\.2\.1.*not followed/);
  fake.mode = 'replay';
});

test('http:// is refused off loopback, in the CLI, the backend and the client; https and loopback pass', () => {
  const lan = 'http://gpu-host.lan:8000/v1';
  assert.throws(
    () => parseConvertArgs(['a.pdf', '--vlm-url', lan]),
    /--vlm-url http:\/\/gpu-host\.lan:8000\/v1 is refused: plain http:\/\/ is accepted only to this machine/,
  );
  assert.match(
    checkOptions({ remoteVlm: { url: lan, model: 'm' } }) ?? '',
    /options\.remoteVlm \.url is refused: plain http/,
  );
  assert.throws(() => new RemoteVlmClient({ url: lan, model: 'm', apiKey: 'sk' }), /the remote VLM address is refused/);
  assert.throws(() => new RemoteVlmClient({ url: 'http://10.0.0.5/v1', model: 'm' }), /refused/);
  for (const ok of [
    'https://gpu-host.lan/v1',
    'http://127.0.0.1:8000/v1',
    'http://localhost:8000/v1',
    'http://[::1]:8000/v1',
  ]) {
    assert.equal(checkOptions({ remoteVlm: { url: ok, model: 'm' } }), undefined, ok);
    assert.equal(parseConvertArgs(['a.pdf', '--vlm-url', ok]).vlmUrl, ok);
    new RemoteVlmClient({ url: ok, model: 'm' });
  }
});
