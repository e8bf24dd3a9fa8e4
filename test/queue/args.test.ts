/** The new command-line flags: `convert --queue/--vlm-*`, `folio worker`, `folio serve` — strict, with messages that say what to type. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseConvertArgs } from '../../server/convertCommand/args';
import { parseWorkerArgs } from '../../server/queue/workerCommand';
import { parseServeArgs } from '../../server/serve/serveCommand';
import { remoteVlmOption } from '../../server/vlm/remoteOptions';

test('convert: --queue, --range-pages and the remote VLM flags', () => {
  const a = parseConvertArgs([
    'x.pdf',
    '--queue',
    'redis://h:6379',
    '--range-pages',
    '4',
    '--engine',
    'vlm',
    '--vlm-url',
    'https://gpu:8000/v1',
    '--vlm-parallel',
    '8',
    '--vlm-timeout',
    '30',
  ]);
  assert.equal(a.queue, 'redis://h:6379');
  assert.equal(a.rangePages, 4);
  assert.deepEqual(remoteVlmOption(a), {
    remoteVlm: { url: 'https://gpu:8000/v1', model: 'ibm-granite/granite-docling-258M', parallel: 8, timeoutMs: 30000 },
  });
  assert.deepEqual(remoteVlmOption(parseConvertArgs(['x.pdf'])), {});
  assert.throws(() => parseConvertArgs(['x.pdf', '--vlm-url', 'gpu:8000']), /--vlm-url must be an http\(s\) URL/);
  assert.throws(() => parseConvertArgs(['x.pdf', '--range-pages', '0']), /--range-pages takes a whole number/);
});

test('worker: --redis required and checked', () => {
  assert.deepEqual(parseWorkerArgs(['--redis', 'redis://127.0.0.1:6379', '--threads', '1', '--lock-ms=5000']), {
    redis: 'redis://127.0.0.1:6379',
    threads: 1,
    concurrency: 1,
    lockMs: 5000,
    ttlSeconds: 86400,
    maxPages: 10000,
    own: {},
  });
  // Security round 3, F2: the worker's own page limit, whatever a task's record says.
  assert.equal(parseWorkerArgs(['--redis', 'redis://x', '--max-pages', '50']).maxPages, 50);
  // One --max-pages for every command (server/flags/groups.ts): the limit's own message, as convert's and the backend's.
  assert.throws(
    () => parseWorkerArgs(['--redis', 'redis://x', '--max-pages', '0']),
    /--max-pages must be a whole number from 1 to 1000000, not 0/,
  );
  assert.throws(() => parseWorkerArgs([]), /--redis <url> is required/);
  assert.throws(() => parseWorkerArgs(['--redis', 'http://x']), /not a Redis URL/);
  assert.throws(() => parseWorkerArgs(['--redis', 'redis://x', '--bogus']), /unknown option --bogus/);
});

test('worker: models and the remote VLM are its own settings; the service with --redis cannot set them', () => {
  const w = parseWorkerArgs([
    '--redis',
    'redis://x',
    '--models',
    '/srv/models',
    '--vlm-url',
    'https://vlm.internal/v1',
    '--vlm-api-key',
    'k',
  ]);
  assert.deepEqual(w.own, {
    modelsDir: '/srv/models',
    remoteVlm: { url: 'https://vlm.internal/v1', model: 'ibm-granite/granite-docling-258M', apiKey: 'k' },
  });
  assert.throws(
    () => parseWorkerArgs(['--redis', 'redis://x', '--vlm-url', 'file:///etc']),
    /--vlm-url must be an http\(s\) URL/,
  );
  assert.throws(() => parseWorkerArgs(['--redis', 'redis://x', '--vlm-url', 'http://gpu:8000/v1']), /needs https:\/\//);
  assert.throws(
    () => parseServeArgs(['--redis', 'redis://x', '--vlm-url', 'http://127.0.0.1:8000/v1'], {}),
    /give --models \/ --vlm-url to each `folio worker`/,
  );
  assert.throws(
    () => parseServeArgs(['--redis', 'redis://x', '--models', '/m'], {}),
    /give --models \/ --vlm-url to each `folio worker`/,
  );
});

test('serve: safe defaults (loopback, limits, timeout), key from the environment', () => {
  const s = parseServeArgs([], { FOLIO_API_KEY: 'k' });
  assert.equal(s.host, '127.0.0.1');
  assert.equal(s.apiKey, 'k');
  assert.equal(s.maxUploadBytes, 100 * 1024 * 1024);
  assert.ok(s.maxPages > 0 && s.timeoutMs > 0 && s.retentionMs > 0);
  assert.equal(s.allowLocal, undefined);
  assert.throws(() => parseServeArgs(['--port', 'x'], {}), /--port takes a number/);
  assert.throws(() => parseServeArgs(['--allow-local', '/nonexistent-folder-xyz'], {}), /not a folder/);
  // https: plain http:// off this machine is refused by serve as by convert and worker (test/flags/table.test.ts).
  assert.equal(
    parseServeArgs(['--vlm-url', 'https://gpu:8000/v1'], {}).base.remoteVlm?.model,
    'ibm-granite/granite-docling-258M',
  );
});
