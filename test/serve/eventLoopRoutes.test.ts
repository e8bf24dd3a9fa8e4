/**
 * Issue 39 ("the event loop is never the victim"): each route of a real `folio serve` (the CLI,
 * its own process, on 127.0.0.1) is sent its worst input while a prober asks `/health` on a fresh
 * connection every 100 ms; every answer must come within 1 s. The latency is measured from the
 * prober's side (its own process), so it is what any client sees: the service's event-loop delay
 * plus the machine's scheduling. Each phase ends on the route's answer (an event), never a clock.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import type { Socket } from 'node:net';
import { repoRoot } from '../helpers/corpus';
import { freePort } from '../helpers/redisServer';
import { openSocket, rawRequest, readResponse } from '../helpers/rawHttp';
import { makePdf } from '../helpers/pdfWriter';

const KEY = 'eventloop-key-0123456789';
const SAMPLE = readFileSync(join(repoRoot(), 'test', 'fixtures', 'sample.pdf'));
let dir: string;
let serve: ChildProcess;
let port: number;
let log = '';

/** The report's N2 page: one tall page, one paragraph of ~70,000 characters in 4 pt type. */
function tallParagraphPdf(): Buffer {
  const words = ['analysis', 'of', 'the', 'data', 'shows', 'a', 'steady', 'rise,', 'which', 'we', 'expected.'];
  const lines: string[] = [];
  for (let l = 0; l < 330; l++) {
    let line = '';
    for (let w = l; line.length < 190; w += 3) line += `${words[w % words.length]} `;
    lines.push(line.trim());
  }
  return makePdf([{ width: 612, height: 2000, fontSize: 4, lines }]);
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'folio-eventloop-'));
  port = await freePort();
  serve = spawn(
    process.execPath,
    [
      join(repoRoot(), 'dist', 'cli.js'),
      'serve',
      '--port',
      String(port),
      '--api-key',
      KEY,
      '--jobs',
      '1',
      '--max-pages',
      '5',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, FOLIO_CACHE_DIR: join(dir, 'cache') } },
  );
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`folio serve did not start: ${log}`)), 60_000);
    serve.stderr!.on('data', (d: Buffer) => {
      log += d.toString();
      if (log.includes('listening on')) {
        clearTimeout(t);
        resolve();
      }
    });
    serve.once('exit', (c) => reject(new Error(`folio serve exited ${c}: ${log}`)));
  });
});
after(async () => {
  if (serve && serve.exitCode === null) {
    const gone = new Promise((r) => serve.once('exit', r));
    process.kill(serve.pid!, 'SIGTERM');
    await gone;
  }
  rmSync(dir, { recursive: true, force: true });
});

/** Asks /health on a fresh connection every 100 ms while `work` runs; answers the slowest answer (ms). */
async function whileProbing<T>(work: () => Promise<T>): Promise<{ value: T; worst: number; probes: number }> {
  let worst = 0;
  let probes = 0;
  let stop = false;
  const prober = (async () => {
    while (!stop) {
      const t0 = performance.now();
      const r = await rawRequest(port, `GET /health HTTP/1.1\r\nhost: 127.0.0.1:${port}`, '', 30_000);
      const ms = performance.now() - t0;
      assert.equal(r.status, 200, `/health answered ${r.status}: ${r.body}`);
      worst = Math.max(worst, ms);
      probes++;
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  try {
    const value = await work();
    return { value, worst, probes };
  } finally {
    stop = true;
    await prober;
  }
}

const auth = { 'x-api-key': KEY };
const base = () => `http://127.0.0.1:${port}`;

function form(fields: Record<string, string>, files: [Buffer, string][]): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  for (const [bytes, name] of files) f.append('files', new Blob([new Uint8Array(bytes)]), name);
  return f;
}

async function post(path: string, body: FormData | string, type?: string): Promise<{ status: number; text: string }> {
  const r = await fetch(`${base()}${path}`, {
    method: 'POST',
    headers: type ? { ...auth, 'content-type': type } : auth,
    body,
  });
  return { status: r.status, text: await r.text() };
}

test('every route gets its worst input while /health answers within 1 s', { timeout: 900_000 }, async () => {
  const tall = tallParagraphPdf();
  const results: string[] = [];
  const phase = async <T>(name: string, work: () => Promise<T>, check: (v: T) => void) => {
    const { value, worst, probes } = await whileProbing(work);
    results.push(`${name}: worst /health ${worst.toFixed(0)} ms over ${probes} probes`);
    check(value);
    assert.ok(probes > 0, `${name}: no probe answered`);
    assert.ok(worst < 1000, `${name}: /health took ${worst.toFixed(0)} ms\n${results.join('\n')}`);
  };
  try {
    // N1: 20,000 empty file sources (the streaming JSON scanner).
    const many = JSON.stringify({ file_sources: Array.from({ length: 20_000 }, () => ({ base64_string: '' })) });
    await phase(
      'convert/source, 20,000 sources',
      () => post('/v1/convert/source', many, 'application/json'),
      (r) => assert.equal(r.status, 413, r.text),
    );
    // The 2 MB of JSON besides files: a list option of 250,000 entries.
    const big = JSON.stringify({ options: { to_formats: Array.from({ length: 250_000 }, () => 'md') }, sources: [] });
    await phase(
      'convert/source, 2 MB of options',
      () => post('/v1/convert/source', big, 'application/json'),
      (r) => assert.ok(r.status === 400 || r.status === 413, `${r.status} ${r.text.slice(0, 200)}`),
    );
    // Deep nesting, a bad key (N7).
    await phase(
      'convert/source, nesting and bad keys',
      async () => [
        await post('/v1/convert/source', '['.repeat(100_000), 'application/json'),
        await post('/v1/convert/source', '{"sou\\xrces":[]}', 'application/json'),
      ],
      (rs) => rs.forEach((r) => assert.equal(r.status, 400, r.text)),
    );
    // Multipart: one file too many, a name too long in bytes (N5).
    await phase(
      'convert/file, 21 files and a 404-byte name',
      async () => [
        await post(
          '/v1/convert/file',
          form(
            {},
            Array.from({ length: 21 }, (_, i) => [SAMPLE, `f${i}.pdf`]),
          ),
        ),
        await post('/v1/convert/file', form({}, [[SAMPLE, `${'é'.repeat(204)}.pdf`]])),
      ],
      (rs) => rs.forEach((r) => assert.ok(r.status === 413 || r.status === 400, `${r.status} ${r.text}`)),
    );
    // N2: the tall paragraph chunked at the largest max_tokens allowed (cut to 8192), both chunkers.
    await phase(
      'chunk/hybrid/file, tall paragraph at max_tokens 100000',
      () => post('/v1/chunk/hybrid/file', form({ chunking_max_tokens: '100000' }, [[tall, 'tall.pdf']])),
      (r) => {
        assert.equal(r.status, 200, r.text.slice(0, 300));
        const body = JSON.parse(r.text) as { chunks: { num_tokens: number }[]; warnings: string[] };
        assert.ok(body.chunks.length >= 1 && body.chunks.every((c) => c.num_tokens <= 8192));
        assert.match(body.warnings.join(' '), /cut at 8192/);
      },
    );
    await phase(
      'chunk/hybrid/file, tall paragraph at max_tokens 16',
      () => post('/v1/chunk/hybrid/file', form({ chunking_max_tokens: '16' }, [[tall, 'tall.pdf']])),
      (r) => assert.equal(r.status, 200, r.text.slice(0, 300)),
    );
    await phase(
      'chunk/hierarchical/file, tall paragraph',
      () => post('/v1/chunk/hierarchical/file', form({}, [[tall, 'tall.pdf']])),
      (r) => assert.equal(r.status, 200, r.text.slice(0, 300)),
    );
    // A task: its WebSocket flooded (N4), polled, its zip, cancelled, results cleared.
    const sub = await post('/v1/convert/file/async', form({ to_formats: 'md' }, [[tall, 'tall.pdf']]));
    assert.equal(sub.status, 200, sub.text);
    const id = (JSON.parse(sub.text) as { task_id: string }).task_id;
    await phase(
      'status/ws, 20,000 frames never read',
      () => wsFlood(id),
      (closed) => assert.ok(closed),
    );
    await phase(
      'status/poll, wait, result zip',
      async () => {
        const p = await fetch(`${base()}/v1/status/poll/${id}?wait=60`, { headers: auth });
        await p.text();
        const z = await fetch(`${base()}/v1/result/${id}?target=zip`, { headers: auth });
        return [p.status, z.status, (await z.arrayBuffer()).byteLength];
      },
      ([p, z]) => assert.ok(p === 200 && (z === 200 || z === 404), `${p} ${z}`),
    );
    await phase(
      'cancel, clear',
      async () => [
        (await fetch(`${base()}/v1/tasks/${id}/cancel`, { method: 'POST', headers: auth })).status,
        (await fetch(`${base()}/v1/clear/results?older_then=0`, { headers: auth })).status,
        (await fetch(`${base()}/v1/clear/converters`, { headers: auth })).status,
        (await fetch(`${base()}/openapi.json`)).status,
        (await fetch(`${base()}/docs`)).status,
      ],
      (s) => assert.deepEqual(s.slice(1), [200, 200, 200, 200]),
    );
    // N3: the slots — 48 idle sockets and 16 keyless requests trickling a body, reopened when closed.
    await phase(
      'connections: 48 idle, 16 keyless trickling',
      () => holdSlots(),
      (n) => assert.ok(n > 0),
    );
  } finally {
    console.log(results.join('\n'));
  }
});

const FLOOD_MASK = randomBytes(4);
/** 20,000 masked one-byte text frames, made once (the prober shares this process: no work of ours in a phase). */
const FLOOD = Buffer.concat(
  Array.from({ length: 20_000 }, () =>
    Buffer.concat([Buffer.from([0x81, 0x81]), FLOOD_MASK, Buffer.from([0x78 ^ FLOOD_MASK[0]!])]),
  ),
);

/** A raw WebSocket client on the task's status route: 20,000 one-byte frames, never reading; true when the service closed it. */
async function wsFlood(id: string): Promise<boolean> {
  const sock = await openSocket(port);
  sock.on('error', () => {});
  const head = new Promise<void>((resolve) => sock.once('data', () => resolve()));
  sock.write(
    `GET /v1/status/ws/${id}?api_key=${KEY} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nupgrade: websocket\r\n` +
      `connection: Upgrade\r\nsec-websocket-key: ${randomBytes(16).toString('base64')}\r\nsec-websocket-version: 13\r\n\r\n`,
  );
  await head;
  const closed = new Promise<boolean>((resolve) => sock.once('close', () => resolve(true)));
  sock.write(FLOOD);
  sock.on('data', () => {});
  return Promise.race([closed, new Promise<boolean>((r) => setTimeout(() => r(false), 30_000))]);
}

/** The report's N3: 48 idle sockets and 16 keyless POSTs trickling a body (all 64 slots), each reopened when the service closes it, for 15 s; answers how many the service closed. */
async function holdSlots(): Promise<number> {
  let closedByService = 0;
  let stop = false;
  const open = new Set<Socket>();
  const keep = async (trickle: boolean) => {
    while (!stop) {
      const s = await openSocket(port).catch(() => undefined);
      if (!s) continue;
      open.add(s);
      s.on('error', () => {});
      if (trickle) {
        readResponse(s, 60_000).catch(() => {});
        s.write(`POST /health HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-length: 1000000\r\n\r\nx`);
      }
      const t = trickle ? setInterval(() => s.writable && s.write('x'), 1000) : undefined;
      await new Promise((r) => s.once('close', r));
      if (t) clearInterval(t);
      open.delete(s);
      if (!stop) closedByService++;
    }
  };
  const all = [...Array.from({ length: 48 }, () => keep(false)), ...Array.from({ length: 16 }, () => keep(true))];
  await new Promise((r) => setTimeout(r, 15_000)); // the attack's duration, not a wait for a result
  stop = true;
  for (const s of open) s.destroy();
  await Promise.all(all);
  return closedByService;
}
