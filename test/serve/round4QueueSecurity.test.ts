/**
 * Security round 4 (issue 39) through `folio serve --redis` (a real Redis, a real `folio worker`
 * started when a test needs a task to end, the real service on 127.0.0.1):
 * - N4: each WebSocket status frame queued a status read (Redis round trips) and an update, with
 *   no rate and no backpressure: a client that never read grew the service by 340 MB in 40 s;
 * - N5: a name of 204 × `é` (404 bytes) passed the service's 255-character check and failed the
 *   queue's 255-byte one: 500;
 * - N10: `/v1/clear/results` answered ok, yet the result was still served and its keys stayed.
 * Each test failed on 8a6f245 and passes since.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { repoRoot } from '../helpers/corpus';
import { openSocket } from '../helpers/rawHttp';
import { startRedis, type RedisHandle } from '../helpers/redisServer';
import type { QueueRunner } from '../../server/serve/tasks';
import { startQueueService, startQueueWorker, stopQueueWorker, type TestService } from '../helpers/serviceRig';
import { docKeys } from '../../server/queue/keys';

const KEY = 'round4-queue-key-0123456789';
const SAMPLE = readFileSync(join(repoRoot(), 'test', 'fixtures', 'sample.pdf'));
let redis: RedisHandle;
let worker: ChildProcess | undefined;
let dir: string;
let service: TestService<QueueRunner>;
let runner: QueueRunner;
let url: string;
let port: number;

before(async () => {
  redis = await startRedis();
  dir = mkdtempSync(join(tmpdir(), 'folio-serve-r4-'));
  service = await startQueueService(redis.url, dir, { apiKey: KEY });
  ({ url, port, runner } = service);
});
after(async () => {
  await service?.close();
  stopQueueWorker(worker);
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function startWorker(): void {
  worker ??= startQueueWorker(redis.url, dir);
}

async function submit(name: string, path = '/v1/convert/file/async'): Promise<Response> {
  const f = new FormData();
  f.append('to_formats', 'md');
  f.append('files', new Blob([new Uint8Array(SAMPLE)]), name);
  return fetch(`${url}${path}`, { method: 'POST', body: f, headers: { 'x-api-key': KEY } });
}

/** One masked WebSocket text frame (as a client must send it) of `payload`. */
function frame(payload: Buffer): Buffer {
  const mask = randomBytes(4);
  const body = Buffer.from(payload.map((b, i) => b ^ mask[i % 4]!));
  return Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, body]);
}

test(
  'N4: a WebSocket client flooding frames and never reading: bounded reads, then closed',
  { timeout: 120_000 },
  async () => {
    // No worker yet: the task stays pending, so the socket stays open for the flood.
    const r = await submit('pending.pdf');
    assert.equal(r.status, 200, await r.clone().text());
    const id = ((await r.json()) as { task_id: string }).task_id;
    let reads = 0;
    const status = runner.status.bind(runner);
    runner.status = (tid: string) => {
      if (tid === id) reads++;
      return status(tid);
    };
    try {
      const sock = await openSocket(port);
      const wsKey = randomBytes(16).toString('base64');
      let got = Buffer.alloc(0);
      const upgraded = new Promise<void>((resolve) =>
        sock.on('data', (d: Buffer) => {
          got = Buffer.concat([got, d]);
          if (got.includes('\r\n\r\n')) {
            sock.removeAllListeners('data');
            sock.pause(); // from here on the client never reads
            resolve();
          }
        }),
      );
      sock.write(
        `GET /v1/status/ws/${id}?api_key=${KEY} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nupgrade: websocket\r\n` +
          `connection: Upgrade\r\nsec-websocket-key: ${wsKey}\r\nsec-websocket-version: 13\r\n\r\n`,
      );
      await upgraded;
      assert.match(got.toString('latin1'), /^HTTP\/1\.1 101/);
      const closed = new Promise<void>((resolve) => sock.once('close', () => resolve()));
      sock.on('error', () => {});
      // 20,000 one-byte frames (140 KB): before, 20,000 status reads and updates queued for a client that does not read.
      const one = frame(Buffer.from('x'));
      const flood = Buffer.concat(Array.from({ length: 20_000 }, () => one));
      sock.write(flood);
      sock.resume(); // read again only to see the end: the service must have closed the socket
      sock.on('data', () => {});
      await Promise.race([
        closed,
        new Promise((_, reject) => setTimeout(() => reject(new Error('the flooding socket was never closed')), 30_000)),
      ]);
      // The burst allowance and one coalesced read at a time: a handful of reads, not 20,000.
      assert.ok(reads < 100, `${reads} status reads for one socket's flood`);
    } finally {
      runner.status = status;
    }
  },
);

test(
  'N5: a name of 204 × é (404 bytes) is a 400 saying bytes, not a 500 from the queue',
  { timeout: 60_000 },
  async () => {
    const r = await submit(`${'é'.repeat(204)}.pdf`, '/v1/convert/file');
    const text = await r.text();
    assert.equal(r.status, 400, text);
    assert.match(text, /bytes long \(UTF-8\); this service takes at most 255/);
    // 100 × é (200 bytes) is a plain name and is taken.
    const ok = await submit(`${'é'.repeat(100)}.pdf`);
    assert.equal(ok.status, 200, await ok.text());
  },
);

test(
  'N10: /v1/clear/results deletes the results of ended tasks and their Redis keys',
  { timeout: 400_000 },
  async () => {
    startWorker();
    const r = await submit('clear-me.pdf');
    assert.equal(r.status, 200, await r.clone().text());
    const id = ((await r.json()) as { task_id: string }).task_id;
    const poll = await fetch(`${url}/v1/status/poll/${id}?wait=60`, { headers: { 'x-api-key': KEY } });
    let status = ((await poll.json()) as { task_status: string }).task_status;
    for (let i = 0; i < 10 && (status === 'pending' || status === 'started'); i++) {
      const p = await fetch(`${url}/v1/status/poll/${id}?wait=60`, { headers: { 'x-api-key': KEY } });
      status = ((await p.json()) as { task_status: string }).task_status;
    }
    assert.equal(status, 'success');
    const before = await fetch(`${url}/v1/result/${id}`, { headers: { 'x-api-key': KEY } });
    assert.equal(before.status, 200, await before.text());
    const clear = await fetch(`${url}/v1/clear/results?older_then=0`, { headers: { 'x-api-key': KEY } });
    assert.equal(clear.status, 200);
    const after = await fetch(`${url}/v1/result/${id}`, { headers: { 'x-api-key': KEY } });
    assert.equal(
      after.status,
      404,
      `the result is still served after the clear: ${(await after.text()).slice(0, 200)}`,
    );
    const keys = Object.values(docKeys(id));
    assert.equal(await runner.client.store.redis.exists(...keys), 0, 'the task keys are still in Redis');
  },
);
