/**
 * Security round 3 (issue 34), F6: a JSON source body (base64 `file_sources`) was read and
 * parsed whole before the service looked at its upload count, its queue or Content-Length:
 * three 133 MB bodies took the service from 189 MB to 1.69 GB. Now the answer comes before a byte
 * of the body is read. Real service on 127.0.0.1, raw sockets: each request below sends its
 * headers and then waits, so an answer proves the body was not needed for it.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { repoRoot } from '../helpers/corpus';
import { openSocket, readResponse } from '../helpers/rawHttp';
import { PageWorkerPool } from '../../server/worker/pool';
import { buildServer, type ServiceLimits } from '../../server/serve/app';
import { InProcessRunner } from '../../server/serve/tasks';
import { WorkDir } from '../../server/serve/workdir';

const KEY = 'json-key-0123456789';
let dir: string;
let pool: PageWorkerPool;
const closers: (() => Promise<unknown>)[] = [];

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'folio-jsonadmit-'));
  pool = new PageWorkerPool({ size: 1, script: join(repoRoot(), 'dist', 'pageWorker.js') });
});
after(async () => {
  for (const c of closers.reverse()) await c();
  await pool?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

async function start(limits: Partial<ServiceLimits>): Promise<number> {
  const work = new WorkDir(mkdtempSync(join(dir, 'work-')));
  const runner = new InProcessRunner(pool, work, { maxPages: 40, timeoutMs: 60_000, retentionMs: 60_000 }, 1);
  const app: FastifyInstance = await buildServer({
    runner,
    work,
    baseOptions: {},
    apiKey: KEY,
    maxUploadBytes: 4 * 1024 * 1024,
    version: 'test',
    limits,
  });
  closers.push(
    () => app.close(),
    () => runner.close(),
  );
  await app.listen({ host: '127.0.0.1', port: 0 });
  return (app.server.address() as { port: number }).port;
}

/** Headers of a JSON POST announcing `length` bytes; the body is left to the caller. */
function head(port: number, length: number, path = '/v1/convert/source/async'): string {
  return (
    `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nx-api-key: ${KEY}\r\n` +
    `content-type: application/json\r\ncontent-length: ${length}\r\n\r\n`
  );
}

const BODY_START = '{"file_sources":[{"filename":"a.pdf","base64_string":"JVBERi0';

test('F6: a full queue answers 503 before the JSON body is read', { timeout: 60_000 }, async () => {
  const port = await start({ maxQueued: 0 });
  for (const path of ['/v1/convert/source', '/v1/convert/source/async', '/v1/chunk/hybrid/source/async']) {
    const sock = await openSocket(port);
    sock.write(head(port, 5_000_000, path) + BODY_START);
    const r = await readResponse(sock, 10_000); // the body never comes: only an early answer arrives
    sock.destroy();
    assert.equal(r.status, 503, `${path}: ${r.body}`);
    assert.match(r.body, /already waiting/);
  }
});

test(
  'F6: the upload count is taken before the body; a closed request gives its slot back',
  { timeout: 60_000 },
  async () => {
    const port = await start({ maxUploadsInFlight: 1 });
    const a = await openSocket(port);
    a.write(head(port, 3_000_000) + BODY_START); // receiving: holds the one slot
    const first = readResponse(a, 30_000).catch((e: Error) => e);
    // Wait until the service has taken A's slot: B is refused from then on (an answer, not a clock).
    let refused: { status: number; body: string } | undefined;
    for (let i = 0; i < 100 && !refused; i++) {
      const b = await openSocket(port);
      b.write(head(port, 3_000_000) + BODY_START);
      const r = await readResponse(b, 10_000);
      b.destroy();
      if (r.status === 429) refused = r;
      else assert.fail(`B was answered ${r.status} before A's slot was seen: ${r.body}`);
    }
    assert.equal(refused?.status, 429);
    assert.match(refused!.body, /at most 1 uploads at once/);
    a.destroy(); // A goes away mid-body: its slot comes back
    await first;
    const body = JSON.stringify({ file_sources: [] });
    for (let i = 0; ; i++) {
      const c = await openSocket(port);
      c.write(head(port, Buffer.byteLength(body)) + body);
      const r = await readResponse(c, 10_000);
      c.destroy();
      if (r.status !== 429) {
        assert.equal(r.status, 400, r.body); // admitted: refused for what it says (no source), not for the count
        assert.match(r.body, /no source/);
        break;
      }
      assert.ok(i < 200, 'the slot of the closed request never came back');
      await new Promise((r) => setImmediate(r));
    }
  },
);

test('F6: a Content-Length over the limit answers 413 before the body', { timeout: 60_000 }, async () => {
  const port = await start({});
  const sock = await openSocket(port);
  sock.write(head(port, 500_000_000) + BODY_START);
  const r = await readResponse(sock, 10_000);
  sock.destroy();
  assert.equal(r.status, 413, r.body);
});
