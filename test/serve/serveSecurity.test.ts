/**
 * `folio serve` from the outside, as an attacker would try it (issue 21 items 1, 6, 9, 10): real
 * servers on 127.0.0.1, raw HTTP over node:net where a request must be malformed or carry
 * headers `fetch` would not send. Each test below failed on main before the fix.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { repoRoot, corpusPath } from '../helpers/corpus';
import { openSocket, rawRequest, readResponse, multipartBody } from '../helpers/rawHttp';
import { PageWorkerPool } from '../../server/worker/pool';
import { buildServer, type ServeConfig } from '../../server/serve/app';
import { InProcessRunner, type NewTask, type TaskRunner } from '../../server/serve/tasks';
import { WorkDir } from '../../server/serve/workdir';
import { parseServeArgs } from '../../server/serve/serveCommand';

const KEY = 'sec-key-0123456789';
const SAMPLE = join(repoRoot(), 'test', 'fixtures', 'sample.pdf'); // 2 pages
const LONG = corpusPath('opendataloader-samples/1901.03003.pdf'); // 15 pages
const NO_TASK = '00000000-0000-4000-8000-000000000000';
let dir: string;
let pool: PageWorkerPool;
const servers: { app: FastifyInstance; runner: InProcessRunner }[] = [];

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'folio-servesec-'));
  pool = new PageWorkerPool({ size: 2, script: join(repoRoot(), 'dist', 'pageWorker.js') });
});
after(async () => {
  for (const s of servers) {
    await s.app.close();
    await s.runner.close();
  }
  await pool?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/** A service on 127.0.0.1 with its own work folder; answers its port. */
async function start(
  over: Partial<ServeConfig> = {},
  concurrency = 2,
): Promise<{ port: number; work: WorkDir; runner: InProcessRunner }> {
  const work = over.work ?? new WorkDir(mkdtempSync(join(dir, 'work-')));
  const runner = new InProcessRunner(
    pool,
    work,
    { maxPages: 40, timeoutMs: 300_000, retentionMs: 600_000 },
    concurrency,
  );
  const app = await buildServer({
    runner,
    work,
    baseOptions: { engine: 'pipeline' },
    apiKey: KEY,
    maxUploadBytes: 2 * 1024 * 1024,
    version: 'test',
    ...over,
  });
  servers.push({ app, runner });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { port: (app.server.address() as { port: number }).port, work, runner };
}

function req(
  method: string,
  target: string,
  port: number,
  headers: Record<string, string> = {},
  body: Buffer | string = '',
): string {
  const h = { host: `127.0.0.1:${port}`, connection: 'close', ...headers };
  if (body.length > 0 && !('content-length' in h))
    (h as Record<string, string>)['content-length'] = String(Buffer.byteLength(body));
  return (
    `${method} ${target} HTTP/1.1\r\n` +
    Object.entries(h)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\r\n')
  );
}

/** Waits (on the folder, not a clock) until `check` holds; fails with `what` after `ms`. */
async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) assert.fail(`timed out waiting until ${what}`);
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setTimeout(r, 20));
  }
}

test(
  '#21.1 the key is checked on the route matched after decoding; non-origin-form targets are refused',
  { timeout: 120_000 },
  async () => {
    const { port } = await start();
    const up = multipartBody([{ name: 'sample.pdf', bytes: readFileSync(SAMPLE) }]);
    // Percent-encoded spellings of /v1/... reach the same routes: without the key, 401.
    const a = await rawRequest(
      port,
      req('POST', '/%761/convert/file', port, { 'content-type': up.contentType }, up.body),
      up.body,
    );
    assert.equal(a.status, 401, a.body);
    assert.equal(JSON.parse(a.body).error.code, 'unauthorized');
    const b = await rawRequest(port, req('GET', `/v%31/result/${NO_TASK}`, port));
    assert.equal(b.status, 401, b.body);
    const c = await rawRequest(port, req('GET', `/v1/status/poll/${NO_TASK}`, port));
    assert.equal(c.status, 401, c.body);
    // With the key the decoded spelling is the same route (so the 401 above was the key, not a miss).
    const d = await rawRequest(port, req('GET', `/%761/status/poll/${NO_TASK}`, port, { 'x-api-key': KEY }));
    assert.equal(d.status, 404, d.body);
    assert.equal(JSON.parse(d.body).error.code, 'unknown_task');
    // Absolute-form and asterisk-form targets: refused whatever the key.
    for (const target of [`http://127.0.0.1:${port}/v1/result/${NO_TASK}`, `http://127.0.0.1:${port}/health`, '*']) {
      const r = await rawRequest(port, req(target === '*' ? 'OPTIONS' : 'GET', target, port, { 'x-api-key': KEY }));
      assert.equal(r.status, 400, `${target}: ${r.body}`);
      assert.equal(JSON.parse(r.body).error.code, 'bad_request_target');
    }
    const abs = await rawRequest(
      port,
      req('POST', `http://127.0.0.1:${port}/v1/convert/file`, port, { 'content-type': up.contentType }, up.body),
      up.body,
    );
    assert.equal(abs.status, 400, abs.body);
    // Public routes stay public.
    assert.equal((await rawRequest(port, req('GET', '/health', port))).status, 200);
  },
);

test('#21.10 Host allow-list (DNS rebinding) and Origin check (web pages)', { timeout: 60_000 }, async () => {
  const { port } = await start({ allowedHosts: ['folio.internal'] });
  for (const host of [
    `127.0.0.1:${port}`,
    `localhost:${port}`,
    `[::1]:${port}`,
    'folio.internal',
    `FOLIO.internal:${port}`,
  ]) {
    const r = await rawRequest(port, req('GET', '/health', port, { host }));
    assert.equal(r.status, 200, `${host}: ${r.body}`);
  }
  for (const host of [`evil.example:${port}`, 'attacker.test', `127.0.0.1.nip.io:${port}`, 'a b', '']) {
    const r = await rawRequest(port, req('GET', '/health', port, { host }));
    assert.equal(r.status, r.status === 400 && host === '' ? 400 : 403, `${JSON.stringify(host)}: ${r.body}`);
    if (r.status === 403) assert.equal(JSON.parse(r.body).error.code, 'host_not_allowed');
  }
  const up = multipartBody([{ name: 'notes.pdf', bytes: Buffer.from('not a pdf') }]);
  const post = (headers: Record<string, string>) =>
    rawRequest(
      port,
      req('POST', '/v1/convert/file', port, { 'x-api-key': KEY, 'content-type': up.contentType, ...headers }, up.body),
      up.body,
    );
  for (const origin of ['https://evil.example', 'null', `http://127.0.0.1:${port + 1}`, `http://localhost:${port}`]) {
    const r = await post({ origin });
    assert.equal(r.status, 403, `${origin}: ${r.body}`);
    assert.equal(JSON.parse(r.body).error.code, 'origin_not_allowed');
  }
  const x = await rawRequest(
    port,
    req('GET', `/v1/status/poll/${NO_TASK}`, port, { 'x-api-key': KEY, 'sec-fetch-site': 'cross-site' }),
  );
  assert.equal(x.status, 403, x.body);
  // The service's own origin passes the gate (and gets to the file check: 415).
  const same = await post({ origin: `http://127.0.0.1:${port}` });
  assert.equal(same.status, 415, same.body);
  const { port: p2 } = await start({ allowedOrigins: ['https://app.example:8443'] });
  const ok = await rawRequest(
    p2,
    req('GET', `/v1/status/poll/${NO_TASK}`, p2, { 'x-api-key': KEY, origin: 'https://app.example:8443' }),
  );
  assert.equal(ok.status, 404, ok.body);
  assert.equal(
    ok.headers['access-control-allow-origin'],
    'https://app.example:8443',
    'the allowed page may read the answer',
  );
  const pre = await rawRequest(
    p2,
    req('OPTIONS', '/v1/convert/file', p2, {
      origin: 'https://app.example:8443',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'x-api-key',
    }),
  );
  assert.equal(pre.status, 204, pre.body);
  assert.match(pre.headers['access-control-allow-headers'] ?? '', /X-Api-Key/i);
  const other = await rawRequest(
    p2,
    req('OPTIONS', '/v1/convert/file', p2, { origin: 'https://evil.example', 'access-control-request-method': 'POST' }),
  );
  assert.equal(other.status, 403);
  assert.equal(other.headers['access-control-allow-origin'], undefined);
  const noKey = await rawRequest(
    p2,
    req('GET', `/v1/status/poll/${NO_TASK}`, p2, { origin: 'https://app.example:8443' }),
  );
  assert.equal(noKey.status, 401, 'an allowed origin still needs the key');
  assert.equal(same.headers['access-control-allow-origin'], undefined, 'no CORS for origins not listed');
});

test(
  '#21.10 limits: a body past the limit gets 413 before it is read; too many uploads 429; partial uploads removed; files 0600',
  { timeout: 120_000 },
  async () => {
    const { port, work } = await start({ limits: { maxUploadsInFlight: 2 } });
    // Claims 10 GB and sends nothing more: answered at once from the headers.
    const big = await rawRequest(
      port,
      req('POST', '/v1/convert/file', port, {
        'x-api-key': KEY,
        'content-type': 'multipart/form-data; boundary=x',
        'content-length': String(10 * 1024 ** 3),
      }),
      '',
      15_000,
    );
    assert.equal(big.status, 413, big.body);
    assert.match(JSON.parse(big.body).error.message, /larger than this service's limit/);

    // Two uploads that stop half way hold the two upload slots.
    const up = multipartBody([{ name: 'slow.pdf', bytes: readFileSync(SAMPLE) }]);
    const slow: Socket[] = [];
    for (let i = 0; i < 2; i++) {
      const s = await openSocket(port);
      s.on('error', () => undefined);
      s.write(
        req('POST', '/v1/convert/file', port, {
          'x-api-key': KEY,
          'content-type': up.contentType,
          'content-length': String(up.body.length),
        }).replace('connection: close', 'connection: keep-alive') + '\r\n\r\n',
      );
      s.write(up.body.subarray(0, Math.floor(up.body.length / 2)));
      slow.push(s);
    }
    await until(() => readdirSync(work.uploads).length === 2, 'both partial uploads are on disk');
    for (const n of readdirSync(work.uploads))
      assert.equal(statSync(join(work.uploads, n)).mode & 0o777, 0o600, `upload ${n} is owner-only`);
    assert.equal(statSync(work.root).mode & 0o777, 0o700);
    const third = await fetch(`http://127.0.0.1:${port}/v1/convert/file`, {
      method: 'POST',
      headers: { 'x-api-key': KEY },
      body: (() => {
        const f = new FormData();
        f.append('files', new Blob([new Uint8Array(readFileSync(SAMPLE))]), 'third.pdf');
        return f;
      })(),
    });
    const tb = (await third.json()) as { error: { code: string; message: string } };
    assert.equal(third.status, 429, JSON.stringify(tb));
    assert.equal(tb.error.code, 'too_many_uploads');
    assert.ok(third.headers.get('retry-after'));
    // The clients go away: their partial files go too.
    for (const s of slow) s.destroy();
    await until(() => readdirSync(work.uploads).length === 0, 'the partial uploads are removed');
  },
);

test(
  '#21.10 limits: connections past the limit get 503; documents waiting past the limit get 503',
  { timeout: 300_000 },
  async () => {
    const { port } = await start({ limits: { maxConnections: 3 } });
    // Three connections that proved the key (a request with it answered, the connection kept
    // alive): an idle connection without the key would give its slot away (round 4, N3).
    const held = await Promise.all([0, 1, 2].map(() => openSocket(port)));
    for (const s of held) {
      const answered = readResponse(s, 15_000);
      s.write(
        `GET /v1/status/poll/00000000-0000-4000-8000-000000000000 HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nx-api-key: ${KEY}\r\n\r\n`,
      );
      assert.equal((await answered).status, 404);
    }
    try {
      const r = await rawRequest(port, req('GET', '/health', port));
      assert.equal(r.status, 503, r.body);
      assert.equal(JSON.parse(r.body).error.code, 'too_many_connections');
    } finally {
      for (const s of held) s.destroy();
    }

    const q = await start({ limits: { maxQueued: 1 } }, 1);
    const submit = async () => {
      const f = new FormData();
      f.append('ocr', 'never');
      f.append('files', new Blob([new Uint8Array(readFileSync(LONG))]), 'long.pdf');
      const res = await fetch(`http://127.0.0.1:${q.port}/v1/convert/file/async`, {
        method: 'POST',
        headers: { 'x-api-key': KEY },
        body: f,
      });
      return { status: res.status, body: (await res.json()) as { task_id?: string; error?: { code: string } } };
    };
    const first = await submit(); // runs
    const second = await submit(); // waits
    const third = await submit(); // one is waiting already: refused
    try {
      assert.equal(first.status, 200);
      assert.equal(second.status, 200);
      assert.equal(third.status, 503, JSON.stringify(third.body));
      assert.equal(third.body.error?.code, 'queue_full');
    } finally {
      for (const t of [first, second]) if (t.body.task_id) await q.runner.cancel(t.body.task_id);
    }
  },
);

test("#21.6 the work folder is private: fresh 0700 by default, another user's or a linked folder refused", () => {
  assert.equal(parseServeArgs([], {}).workDir, undefined, 'no fixed shared-temp default');
  const w = WorkDir.fresh(dir);
  assert.ok(w.root.startsWith(join(dir, 'folio-serve-')));
  for (const d of [w.root, w.uploads, w.results]) assert.equal(statSync(d).mode & 0o777, 0o700, d);
  w.dispose();
  assert.equal(existsSync(w.root), false, 'a fresh folder is removed when the service stops');

  const open = join(dir, 'open');
  mkdirSync(open, { mode: 0o777 });
  chmodSync(open, 0o777);
  new WorkDir(open);
  assert.equal(statSync(open).mode & 0o777, 0o700, 'an own folder is made private');

  const link = join(dir, 'linked');
  symlinkSync(open, link);
  assert.throws(() => new WorkDir(link), /symbolic link/);
  if (process.getuid?.() === 0) {
    const theirs = join(dir, 'theirs');
    mkdirSync(theirs, { mode: 0o700 });
    chownSync(theirs, 65534, 65534);
    assert.throws(() => new WorkDir(theirs), /belongs to another user/);
  }
});

test(
  '#21.9 --allow-local: a file inside the work folder is neither read nor deleted; 404 alike whether a path exists or not',
  { timeout: 300_000 },
  async () => {
    const root = mkdtempSync(join(dir, 'allowed-'));
    const work = new WorkDir(join(root, 'work'));
    mkdirSync(join(root, 'src'));
    copyFileSync(SAMPLE, join(root, 'src', 'kept.pdf'));
    copyFileSync(SAMPLE, join(work.root, 'mine.pdf'));
    copyFileSync(SAMPLE, join(work.uploads, 'someone-elses.pdf'));
    copyFileSync(SAMPLE, join(dir, 'outside.pdf'));
    symlinkSync(join(dir, 'outside.pdf'), join(root, 'src', 'link-out.pdf'));
    const { port } = await start({ work, allowLocalRoot: root });
    const local = async (path: string) => {
      const res = await fetch(`http://127.0.0.1:${port}/v1/convert/source`, {
        method: 'POST',
        headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ path, options: { page_range: '1', ocr: 'never' } }),
      });
      return {
        status: res.status,
        body: (await res.json()) as { error?: { code: string; message: string }; document?: { filename: string } },
      };
    };
    for (const p of ['work/mine.pdf', join(work.root, 'mine.pdf'), 'work/uploads/someone-elses.pdf']) {
      const r = await local(p);
      assert.equal(r.status, 404, `${p}: ${JSON.stringify(r.body)}`);
    }
    assert.ok(existsSync(join(work.root, 'mine.pdf')), 'the source inside the work folder is still there');
    assert.ok(existsSync(join(work.uploads, 'someone-elses.pdf')));
    const ok = await local('src/kept.pdf');
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.document?.filename, 'kept.pdf');
    assert.ok(existsSync(join(root, 'src', 'kept.pdf')), 'a converted local file is kept');
    // Existing and missing, inside and outside, through a link: one answer.
    const answers = await Promise.all(
      [
        '/etc/hostname',
        '/etc/no-such-file-folio',
        join(dir, 'outside.pdf'),
        '../outside.pdf',
        'src/link-out.pdf',
        'src/missing.pdf',
        'src',
      ].map(async (p) => ({ p, r: await local(p) })),
    );
    for (const { p, r } of answers) {
      assert.equal(r.status, 404, `${p}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error?.message, `${p} is not a file inside the folder this service may read`);
    }
  },
);

test('serve flags for the gate and the limits', () => {
  const a = parseServeArgs(
    [
      '--allow-host',
      'Folio.Internal',
      '--allow-origin',
      'https://app.example:8443',
      '--max-connections',
      '5',
      '--max-uploads',
      '2',
      '--max-queue',
      '7',
      '--request-timeout',
      '30',
      '--work-dir',
      dir,
    ],
    {},
  );
  assert.deepEqual(a.allowedHosts, ['folio.internal']);
  assert.deepEqual(a.allowedOrigins, ['https://app.example:8443']);
  assert.deepEqual(a.limits, {
    maxConnections: 5,
    maxUploadsInFlight: 2,
    maxQueued: 7,
    requestTimeoutMs: 30_000,
    admitTimeoutMs: 10_000,
    idleTimeoutMs: 30_000,
  });
  assert.equal(a.workDir, dir);
  assert.throws(() => parseServeArgs(['--allow-origin', 'https://app.example/path'], {}), /an origin such as/);
  assert.throws(() => parseServeArgs(['--allow-host', 'evil.example:80'], {}), /host name/);
  assert.deepEqual(
    parseServeArgs([], {}).httpSources,
    { enabled: false, allowPrivate: false },
    'URL fetching is off by default',
  );
  assert.deepEqual(
    parseServeArgs(['--allow-http-sources', '--allow-private-sources', '--max-files', '3'], {}).httpSources,
    { enabled: true, allowPrivate: true },
  );
  assert.throws(() => parseServeArgs(['--allow-private-sources'], {}), /needs --allow-http-sources/);
});

/** The real in-process runner, with the ids of the tasks it was given recorded (a decorator, not a fake). */
class RecordingRunner implements TaskRunner {
  readonly kind = 'in-process' as const;
  readonly ids: string[] = [];
  constructor(private readonly inner: InProcessRunner) {}
  async submit(t: NewTask): Promise<string> {
    const id = await this.inner.submit(t);
    this.ids.push(id);
    return id;
  }
  status(id: string) {
    return this.inner.status(id);
  }
  result(id: string) {
    return this.inner.result(id);
  }
  cancel(id: string) {
    return this.inner.cancel(id);
  }
  wait(id: string, signal?: AbortSignal) {
    return this.inner.wait(id, signal);
  }
  ready() {
    return this.inner.ready();
  }
  backlog() {
    return this.inner.backlog();
  }
  close() {
    return this.inner.close();
  }
}

test('#21.10 a synchronous request whose client goes away stops its conversion', { timeout: 300_000 }, async () => {
  const work = new WorkDir(mkdtempSync(join(dir, 'work-')));
  const inner = new InProcessRunner(pool, work, { maxPages: 40, timeoutMs: 300_000, retentionMs: 600_000 }, 1);
  const runner = new RecordingRunner(inner);
  const app = await buildServer({
    runner,
    work,
    baseOptions: { engine: 'pipeline' },
    apiKey: KEY,
    maxUploadBytes: 8 * 1024 * 1024,
    version: 'test',
  });
  servers.push({ app, runner: inner });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as { port: number }).port;
  // 15 pages, every one through OCR: long enough that "cancelled" can only come from the disconnect.
  const up = multipartBody([{ name: 'long.pdf', bytes: readFileSync(LONG) }], { ocr: 'always' });
  const s = await openSocket(port);
  s.on('error', () => undefined);
  s.write(
    req('POST', '/v1/convert/file', port, {
      'x-api-key': KEY,
      'content-type': up.contentType,
      'content-length': String(up.body.length),
    }) + '\r\n\r\n',
  );
  s.write(up.body);
  await until(() => runner.ids.length === 1, 'the task is submitted');
  const id = runner.ids[0]!;
  for (;;) {
    const st = await inner.status(id);
    if (st && st.pagesDone >= 1) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  s.destroy();
  const end = await inner.wait(id);
  assert.equal(end?.state, 'cancelled', JSON.stringify(end));
  assert.ok((end?.pagesDone ?? 15) < 15, `stopped early: ${end?.pagesDone} pages`);
  await until(() => readdirSync(work.uploads).length === 0, 'the upload is removed');
});
