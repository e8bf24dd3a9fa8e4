/**
 * docling-serve's WebSocket status route, /v1/status/ws/{task_id} (statusWebSocket.ts): real
 * services on 127.0.0.1 converting real PDFs on real page workers, and the `ws` client that
 * docling-client's `websockets` stands in for. Messages are checked against docling's
 * `WebsocketMessage.model_dump_json()` (message, task, error; absent ones null).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { PassThrough } from 'node:stream';
import WebSocket from 'ws';
import type { FastifyInstance } from 'fastify';
import { repoRoot, corpusPath } from '../helpers/corpus';
import { PageWorkerPool } from '../../server/worker/pool';
import { buildServer, type ServeConfig } from '../../server/serve/app';
import { InProcessRunner } from '../../server/serve/tasks';
import { WorkDir } from '../../server/serve/workdir';

const KEY = 'ws-key-0123456789abcdef';
const SAMPLE = join(repoRoot(), 'test', 'fixtures', 'sample.pdf'); // 2 pages
const LONG = corpusPath('opendataloader-samples/1901.03003.pdf'); // 15 pages
const NO_TASK = '00000000-0000-4000-8000-000000000000';
let dir: string;
let pool: PageWorkerPool;
const servers: { app: FastifyInstance; runner: InProcessRunner }[] = [];

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'folio-statusws-'));
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

async function start(over: Partial<ServeConfig> = {}, concurrency = 2): Promise<number> {
  const work = new WorkDir(mkdtempSync(join(dir, 'work-')));
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
    maxUploadBytes: 4 * 1024 * 1024,
    version: 'test',
    ...over,
  });
  servers.push({ app, runner });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return (app.server.address() as { port: number }).port;
}

/** Submits `file` to /v1/convert/file/async; answers the task id. */
async function submit(port: number, file: string): Promise<string> {
  const form = new FormData();
  form.append('files', new Blob([readFileSync(file)], { type: 'application/pdf' }), 'doc.pdf');
  form.append('to_formats', 'md');
  const r = await fetch(`http://127.0.0.1:${port}/v1/convert/file/async`, {
    method: 'POST',
    headers: { 'x-api-key': KEY },
    body: form,
  });
  assert.equal(r.status, 200, await r.clone().text());
  return ((await r.json()) as { task_id: string }).task_id;
}

interface WsMessage {
  message: string;
  task: { task_id: string; task_status: string; task_meta: { pages_done: number } } | null;
  error: string | null;
}
type Opened = {
  kind: 'open';
  ws: WebSocket;
  raw: string[];
  /** The next message not yet taken (waits for it). */
  next(): Promise<WsMessage>;
  closed: Promise<{ code: number; reason: string }>;
};
type Refused = { kind: 'refused'; status: number; body: string };

/** Opens a WebSocket to the service; a handshake the service answers with HTTP is `refused`. */
function connect(port: number, path: string, headers: Record<string, string> = {}): Promise<Opened | Refused> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}${path}`, { headers });
    const raw: string[] = [];
    let taken = 0;
    let wake: (() => void) | undefined;
    const closed = new Promise<{ code: number; reason: string }>((r) =>
      ws.on('close', (code, reason) => {
        r({ code, reason: reason.toString() });
        wake?.();
      }),
    );
    ws.on('message', (data) => {
      raw.push(data.toString());
      wake?.();
    });
    const next = async (): Promise<WsMessage> => {
      while (taken >= raw.length) {
        if (ws.readyState === WebSocket.CLOSED) assert.fail(`socket closed; messages: ${raw.join(' | ')}`);
        await new Promise<void>((r) => (wake = r));
      }
      return JSON.parse(raw[taken++]!) as WsMessage;
    };
    ws.on('open', () => resolve({ kind: 'open', ws, raw, next, closed }));
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ kind: 'refused', status: res.statusCode ?? 0, body }));
    });
    ws.on('error', (e) => reject(e));
  });
}

function opened(c: Opened | Refused): Opened {
  assert.equal(c.kind, 'open', c.kind === 'refused' ? `refused ${c.status}: ${c.body}` : '');
  return c as Opened;
}

test(
  'a real conversion: connection, then updates pushed as the task moves, closed (1000) when it ends',
  { timeout: 180_000 },
  async () => {
    const port = await start();
    const id = await submit(port, LONG);
    const c = opened(await connect(port, `/v1/status/ws/${id}?api_key=${KEY}`));
    const first = await c.next();
    assert.equal(first.message, 'connection');
    assert.equal(first.error, null);
    assert.equal(first.task?.task_id, id);
    assert.equal((await c.next()).message, 'update');
    // A client message asks for another update (docling-serve: "each client message will be
    // interpreted as a request for update").
    c.ws.send('status please');
    const { code } = await c.closed;
    assert.equal(code, 1000);
    const all = c.raw.map((t) => JSON.parse(t) as WsMessage);
    assert.deepEqual(Object.keys(all[0]!), ['message', 'task', 'error']);
    assert.ok(all.slice(1).every((m) => m.message === 'update' && m.error === null));
    const last = all.at(-1)!;
    assert.equal(last.task?.task_status, 'success');
    assert.equal(last.task?.task_meta.pages_done, 15);
    // Pushed without asking: the client sent one message, yet saw the pages move more than once.
    const pages = new Set(all.map((m) => m.task?.task_meta.pages_done));
    assert.ok(all.length >= 4 && pages.size >= 3, `updates: ${c.raw.join('\n')}`);
    // The task is the poll route's answer, field for field.
    const poll = await fetch(`http://127.0.0.1:${port}/v1/status/poll/${id}`, { headers: { 'x-api-key': KEY } });
    assert.deepEqual(last.task, await poll.json());
  },
);

test('an unknown or malformed task id: docling-serve error message, then close', { timeout: 60_000 }, async () => {
  const port = await start();
  for (const id of [NO_TASK, 'not-a-task-id', '..%2F..%2Fetc']) {
    const c = opened(await connect(port, `/v1/status/ws/${id}?api_key=${KEY}`));
    const m = await c.next();
    assert.deepEqual(m, { message: 'error', task: null, error: 'Task not found.' });
    assert.equal(c.raw[0], '{"message":"error","task":null,"error":"Task not found."}');
    assert.equal((await c.closed).code, 1000);
  }
});

test(
  'the key: missing, wrong or repeated refused (401, before the upgrade); right one accepted',
  { timeout: 60_000 },
  async () => {
    const port = await start();
    for (const q of ['', '?api_key=', '?api_key=wrong', `?api_key=${KEY}x`, `?api_key=${KEY}&api_key=${KEY}`]) {
      const r = await connect(port, `/v1/status/ws/${NO_TASK}${q}`);
      assert.equal(r.kind, 'refused', q);
      const { status, body } = r as Refused;
      assert.equal(status, 401, q);
      assert.equal(JSON.parse(body).detail, 'Api key is required as the ?api_key=SECRET query parameter.');
    }
    // The query parameter is a key on this route only.
    const poll = await fetch(`http://127.0.0.1:${port}/v1/status/poll/${NO_TASK}?api_key=${KEY}`);
    assert.equal(poll.status, 401);
    for (const [path, headers] of [
      [`/v1/status/ws/${NO_TASK}?api_key=${KEY}`, {}],
      [`/v1/status/ws/${NO_TASK}`, { 'x-api-key': KEY }],
    ] as const) {
      const c = opened(await connect(port, path, headers));
      assert.equal((await c.next()).error, 'Task not found.');
      await c.closed;
    }
  },
);

test('a web page on another origin cannot open it; the service own origin can', { timeout: 60_000 }, async () => {
  const port = await start();
  const path = `/v1/status/ws/${NO_TASK}?api_key=${KEY}`;
  for (const origin of ['http://evil.example', `http://localhost.evil.example:${port}`, 'null']) {
    const r = await connect(port, path, { origin });
    assert.equal(r.kind, 'refused', origin);
    assert.equal((r as Refused).status, 403);
    assert.equal(JSON.parse((r as Refused).body).error.code, 'origin_not_allowed');
  }
  const rebinding = await connect(port, path, { host: 'attacker.example' });
  assert.equal(rebinding.kind === 'refused' && rebinding.status, 403);
  const same = opened(await connect(port, path, { origin: `http://127.0.0.1:${port}` }));
  assert.equal((await same.next()).error, 'Task not found.');
  await same.closed;
});

test('the key in the query string never reaches the request log', { timeout: 60_000 }, async () => {
  const log = new PassThrough();
  let text = '';
  log.on('data', (c: Buffer) => (text += c.toString()));
  const port = await start({ requestLog: log });
  const c = opened(await connect(port, `/v1/status/ws/${NO_TASK}?x=1&api_key=${KEY}`));
  await c.closed;
  const wrong = await connect(port, `/v1/status/ws/${NO_TASK}?api%5Fkey=${KEY}-not`);
  assert.equal(wrong.kind, 'refused');
  await until(() => text.split('api%5Fkey=[redacted]').length > 1, 'the refused request is logged');
  assert.ok(text.includes(`/v1/status/ws/${NO_TASK}?x=1&api_key=[redacted]`), text);
  assert.ok(!text.includes(KEY), text);
});

test('bounded: sockets past the cap are told busy (1013); an idle socket is closed', { timeout: 180_000 }, async () => {
  const port = await start({ statusSockets: { maxSockets: 1, idleMs: 400 } }, 1);
  const busy = await submit(port, LONG);
  const waiting = await submit(port, SAMPLE); // pending behind LONG: its status does not move
  const a = opened(await connect(port, `/v1/status/ws/${waiting}?api_key=${KEY}`));
  assert.equal((await a.next()).message, 'connection');
  const b = opened(await connect(port, `/v1/status/ws/${waiting}?api_key=${KEY}`));
  assert.deepEqual(await b.next(), {
    message: 'error',
    task: null,
    error: 'Server is busy, please try again shortly.',
  });
  assert.equal((await b.closed).code, 1013);
  const idle = await a.closed;
  assert.deepEqual(idle, { code: 1000, reason: 'idle' });
  const last = JSON.parse(a.raw.at(-1)!) as WsMessage;
  assert.equal(last.task?.task_status, 'pending', 'closed for idleness, not because the task ended');
  // The slot is free again.
  const again = opened(await connect(port, `/v1/status/ws/${waiting}?api_key=${KEY}`));
  assert.equal((await again.next()).message, 'connection');
  again.ws.close();
  for (const id of [busy, waiting])
    await fetch(`http://127.0.0.1:${port}/v1/tasks/${id}/cancel`, { method: 'POST', headers: { 'x-api-key': KEY } });
});

/** Waits (on the log stream, not a clock) until `check` holds. */
async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) assert.fail(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
