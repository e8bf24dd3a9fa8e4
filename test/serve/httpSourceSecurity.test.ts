/**
 * Security round 3 (issue 34), `http_sources`, against a real service on 127.0.0.1 and an
 * "attacker" source server on loopback (real sockets; what the source server sees is what an
 * attacker would see):
 * - F4: every IPv4 address was refused as private (Node's BlockList checks IPv4 against the IPv6
 *   rule `::ffff:0:0/96`); a public IPv4 source must pass the address check. A public address
 *   cannot be reached here, so the service's test hook (`connectForTest`) sends the connection
 *   that passed every check to the loopback source server instead; nothing else changes.
 * - F3: one deadline over the whole exchange; responses not used are closed, never drained.
 * - F5: client headers stay with the URL's origin; https → http redirects are refused.
 * - F12: a malformed `%` escape in a source URL was a 500.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { repoRoot } from '../helpers/corpus';
import { PageWorkerPool } from '../../server/worker/pool';
import { buildServer, type ServeConfig } from '../../server/serve/app';
import { InProcessRunner } from '../../server/serve/tasks';
import { WorkDir } from '../../server/serve/workdir';
import { isPrivateAddress } from '../../server/serve/sources';

const KEY = 'src-key-0123456789';
const SAMPLE = join(repoRoot(), 'test', 'fixtures', 'sample.pdf');
const PUBLIC_V4 = '93.184.216.34';
let dir: string;
let pool: PageWorkerPool;
const closers: (() => Promise<unknown>)[] = [];

/** What the source server saw: each request's path and headers, and each endless response's socket. */
interface Seen {
  path: string;
  headers: IncomingHttpHeaders;
}
let source: Server;
let sourcePort: number;
let other: Server;
let otherPort: number;
const seen: Seen[] = [];
const otherSeen: Seen[] = [];
/** Sockets of responses that never end, by path: the test waits for the service to close them. */
const endless = new Map<string, Promise<number>>();

/** Writes `chunk` every `everyMs` until the peer closes; resolves with the bytes written when it does. */
function forever(res: ServerResponse, socket: Socket, path: string, chunk: Buffer, everyMs: number): void {
  let sent = 0;
  endless.set(
    path,
    new Promise<number>((resolve) => {
      const t = setInterval(() => {
        if (socket.destroyed) return;
        socket.write(chunk);
        sent += chunk.length;
      }, everyMs);
      socket.once('close', () => {
        clearInterval(t);
        resolve(sent);
      });
    }),
  );
  void res;
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'folio-srcsec-'));
  pool = new PageWorkerPool({ size: 1, script: join(repoRoot(), 'dist', 'pageWorker.js') });
  const pdf = readFileSync(SAMPLE);
  source = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    seen.push({ path: url.pathname, headers: req.headers });
    const socket = req.socket;
    switch (url.pathname) {
      case '/trickle-headers':
        // A status line, then one byte of a header every 100 ms, forever.
        socket.write('HTTP/1.1 200 OK\r\nX-Slow: ');
        forever(res, socket, url.pathname, Buffer.from('a'), 100);
        return;
      case '/endless-404':
        socket.write('HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\n\r\n');
        forever(res, socket, url.pathname, Buffer.alloc(64 * 1024, 120), 20);
        return;
      case '/endless-redirect':
        socket.write('HTTP/1.1 302 Found\r\nLocation: /docs/sample.pdf\r\n\r\n');
        forever(res, socket, url.pathname, Buffer.alloc(64 * 1024, 120), 20);
        return;
      case '/redir':
        res.writeHead(302, { location: url.searchParams.get('to') ?? '/' }).end();
        return;
      case '/needs-auth.pdf':
        if (req.headers.authorization !== 'Bearer SECRET-TOKEN') res.writeHead(401).end();
        else res.writeHead(200, { 'content-type': 'application/pdf' }).end(pdf);
        return;
      default:
        res.writeHead(200, { 'content-type': 'application/pdf' }).end(pdf);
    }
  });
  await new Promise<void>((r) => source.listen(0, '127.0.0.1', r));
  sourcePort = (source.address() as { port: number }).port;
  other = createServer((req, res) => {
    otherSeen.push({ path: req.url ?? '', headers: req.headers });
    res.writeHead(200, { 'content-type': 'application/pdf' }).end(pdf);
  });
  await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
  otherPort = (other.address() as { port: number }).port;
});

after(async () => {
  for (const c of closers.reverse()) await c();
  source?.closeAllConnections();
  other?.closeAllConnections();
  source?.close();
  other?.close();
  await pool?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/** A service on 127.0.0.1 with http sources on; answers its base URL. */
async function start(httpSources: ServeConfig['httpSources']): Promise<string> {
  const work = new WorkDir(mkdtempSync(join(dir, 'work-')));
  const runner = new InProcessRunner(pool, work, { maxPages: 40, timeoutMs: 300_000, retentionMs: 600_000 }, 1);
  const app: FastifyInstance = await buildServer({
    runner,
    work,
    baseOptions: { engine: 'pipeline' },
    apiKey: KEY,
    maxUploadBytes: 4 * 1024 * 1024,
    version: 'test',
    httpSources,
  });
  closers.push(
    () => app.close(),
    () => runner.close(),
  );
  return app.listen({ host: '127.0.0.1', port: 0 });
}

async function send(
  at: string,
  source: Record<string, unknown>,
): Promise<{ status: number; text: string; ms: number }> {
  const t0 = Date.now();
  const res = await fetch(`${at}/v1/convert/source`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': KEY },
    body: JSON.stringify({ http_sources: [source], options: { do_ocr: false } }),
  });
  return { status: res.status, text: await res.text(), ms: Date.now() - t0 };
}

/** Resolves with the value, or with `late` once `ms` have passed (a bound, not a sleep: the value usually comes first). */
function within<T>(p: Promise<T>, ms: number, late: string): Promise<T | string> {
  return Promise.race([p, new Promise<string>((r) => setTimeout(() => r(late), ms).unref())]);
}

test('F4: the address check treats IPv4 and IPv6 separately, and every IPv4-embedding IPv6 form is private', () => {
  for (const a of [PUBLIC_V4, '8.8.8.8', '1.1.1.1', '151.101.1.69', '2606:4700:4700::1111', '2a00:1450:4001::200e'])
    assert.equal(isPrivateAddress(a), false, a);
  for (const a of [
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    '::7f00:1', // [::127.0.0.1], the old IPv4-compatible form
    '::ffff:0:7f00:1', // IPv4-translated
    '::ffff:7f00:1',
    '::ffff:127.0.0.1',
    '::ffff:8.8.8.8', // mapped: never needed, a public IPv4 source is written as IPv4
    '64:ff9b::7f00:1',
    '2002:7f00:1::',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'ff02::1',
    'not an address',
  ])
    assert.equal(isPrivateAddress(a), true, a);
});

test(
  'F4: http_sources fetches a public IPv4 source and still refuses every private form',
  { timeout: 240_000 },
  async () => {
    const routed: string[] = [];
    const svc = await start({
      enabled: true,
      allowPrivate: false,
      connectForTest: (address, port) => {
        routed.push(`${address}:${port}`);
        return { host: '127.0.0.1', port: sourcePort };
      },
    });
    const ok = await send(svc, { url: `http://${PUBLIC_V4}/docs/paper.pdf` });
    assert.equal(ok.status, 200, ok.text.slice(0, 400));
    assert.equal(JSON.parse(ok.text).document.filename, 'paper.pdf');
    assert.deepEqual(routed, [`${PUBLIC_V4}:80`], 'the connection went to the checked public address');
    assert.equal(seen.at(-1)?.headers.host, PUBLIC_V4, 'the Host header names the URL, not where the test sent it');
    const before = seen.length;
    const p = sourcePort;
    for (const url of [
      `http://127.0.0.1:${p}/x.pdf`,
      `http://127.1:${p}/x.pdf`,
      `http://2130706433:${p}/x.pdf`,
      `http://0177.0.0.1:${p}/x.pdf`,
      `http://0x7f.1:${p}/x.pdf`,
      `http://127.0.0.1.:${p}/x.pdf`,
      `http://0:${p}/x.pdf`,
      `http://localhost:${p}/x.pdf`,
      `http://[::1]:${p}/x.pdf`,
      `http://[::]:${p}/x.pdf`,
      `http://[::ffff:127.0.0.1]:${p}/x.pdf`,
      `http://[0:0:0:0:0:ffff:7f00:1]:${p}/x.pdf`,
      `http://[::127.0.0.1]:${p}/x.pdf`,
      `http://[::ffff:0:7f00:1]:${p}/x.pdf`,
      `http://[64:ff9b::7f00:1]:${p}/x.pdf`,
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/x.pdf',
      'http://192.168.0.1/x.pdf',
      'http://[fd00::1]/x.pdf',
      'http://[fe80::1]/x.pdf',
      // A public first hop that redirects to a private address: each hop is checked.
      `http://${PUBLIC_V4}/redir?to=${encodeURIComponent(`http://127.0.0.1:${p}/x.pdf`)}`,
      `http://${PUBLIC_V4}/redir?to=${encodeURIComponent(`http://localhost:${p}/x.pdf`)}`,
      `http://${PUBLIC_V4}/redir?to=${encodeURIComponent(`http://[::ffff:0:7f00:1]:${p}/x.pdf`)}`,
    ]) {
      const r = await send(svc, { url });
      assert.equal(r.status, 400, `${url}: ${r.text.slice(0, 300)}`);
      assert.match(r.text, /private or local address/, url);
    }
    // Only the three public first hops reached the source server (through the hook); no private form did.
    assert.deepEqual(
      seen.slice(before).map((s) => s.path),
      ['/redir', '/redir', '/redir'],
    );
    assert.ok(
      routed.slice(1).every((r) => r === `${PUBLIC_V4}:80`),
      routed.join(', '),
    );
  },
);

test(
  'F3: one deadline covers headers and bodies; redirect and error bodies are closed, not drained',
  { timeout: 240_000 },
  async () => {
    const svc = await start({ enabled: true, allowPrivate: true, timeoutMs: 2000 });
    const base = `http://127.0.0.1:${sourcePort}`;
    // Headers trickled a byte at a time: the idle timeout never fired; the deadline must.
    const trickle = await within(send(svc, { url: `${base}/trickle-headers` }), 30_000, 'no answer in 30 s');
    assert.notEqual(trickle, 'no answer in 30 s');
    const t = trickle as Awaited<ReturnType<typeof send>>;
    assert.equal(t.status, 504, t.text.slice(0, 300));
    assert.match(t.text, /took longer than 2 s/);
    assert.equal(
      typeof (await within(endless.get('/trickle-headers')!, 10_000, 'open')),
      'number',
      'connection closed',
    );
    // An error answer with an endless body: 502 at once, and the body is not read on.
    const notFound = await send(svc, { url: `${base}/endless-404` });
    assert.equal(notFound.status, 502, notFound.text.slice(0, 300));
    assert.match(notFound.text, /HTTP 404/);
    const sent404 = await within(endless.get('/endless-404')!, 10_000, 'still reading');
    assert.equal(typeof sent404, 'number', 'the 404 body is still being read 10 s after the answer');
    // A redirect with an endless body: the target converts, the redirect's connection is closed.
    const hop = await send(svc, { url: `${base}/endless-redirect` });
    assert.equal(hop.status, 200, hop.text.slice(0, 300));
    const sent302 = await within(endless.get('/endless-redirect')!, 10_000, 'still reading');
    assert.equal(typeof sent302, 'number', 'the redirect body is still being read 10 s after the answer');
  },
);

test(
  "F5: Authorization and Cookie go only to the URL's origin; https → http redirects are refused",
  { timeout: 240_000 },
  async () => {
    const svc = await start({ enabled: true, allowPrivate: true });
    const headers = { Authorization: 'Bearer SECRET-TOKEN', Cookie: 'sid=abc', 'X-Other': 'kept?' };
    // Same origin: the headers follow (the source needs them).
    const same = await send(svc, {
      url: `http://127.0.0.1:${sourcePort}/redir?to=/needs-auth.pdf`,
      headers,
    });
    assert.equal(same.status, 200, same.text.slice(0, 300));
    // Another origin (another port): none of the client's headers reach it.
    const cross = await send(svc, {
      url: `http://127.0.0.1:${sourcePort}/redir?to=${encodeURIComponent(`http://127.0.0.1:${otherPort}/secret.pdf`)}`,
      headers,
    });
    assert.equal(cross.status, 200, cross.text.slice(0, 300));
    const got = otherSeen.at(-1);
    assert.equal(got?.path, '/secret.pdf');
    assert.equal(got?.headers.authorization, undefined, JSON.stringify(got?.headers));
    assert.equal(got?.headers.cookie, undefined, JSON.stringify(got?.headers));
    assert.equal(got?.headers['x-other'], undefined, JSON.stringify(got?.headers));
  },
);

test('F5: a redirect from https to http is not followed', { timeout: 240_000 }, async (t) => {
  // A certificate for 127.0.0.1 the service trusts: NODE_EXTRA_CA_CERTS is read at start, so
  // the trust is given through the global agent's CA instead (the request uses the global agent).
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  const made = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { encoding: 'utf8' },
  );
  assert.equal(made.status, 0, `openssl (Debian package openssl) made no certificate: ${made.stderr}`);
  const cert = readFileSync(certFile);
  const tls = createHttpsServer({ key: readFileSync(keyFile), cert }, (req, res) => {
    const url = new URL(req.url ?? '/', 'https://x');
    if (url.pathname === '/down') res.writeHead(302, { location: `http://127.0.0.1:${otherPort}/down.pdf` }).end();
    else res.writeHead(200, { 'content-type': 'application/pdf' }).end(readFileSync(SAMPLE));
  });
  await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
  const { globalAgent } = await import('node:https');
  const ca = globalAgent.options.ca;
  globalAgent.options.ca = cert;
  t.after(() => {
    globalAgent.options.ca = ca;
    tls.closeAllConnections();
    tls.close();
  });
  const svc = await start({ enabled: true, allowPrivate: true });
  const port = (tls.address() as { port: number }).port;
  const direct = await send(svc, { url: `https://127.0.0.1:${port}/doc.pdf` });
  assert.equal(direct.status, 200, `the https source itself is fetched: ${direct.text.slice(0, 300)}`);
  const before = otherSeen.length;
  const down = await send(svc, { url: `https://127.0.0.1:${port}/down`, headers: { Authorization: 'Bearer X' } });
  assert.equal(down.status, 502, down.text.slice(0, 300));
  assert.match(down.text, /redirected from https to http/);
  assert.equal(otherSeen.length, before, 'the http target was never asked');
});

test('F12: a malformed % escape in a source URL is not a server error', { timeout: 240_000 }, async () => {
  const svc = await start({ enabled: true, allowPrivate: true });
  const r = await send(svc, { url: `http://127.0.0.1:${sourcePort}/x%E0%A4%A.pdf` });
  assert.equal(r.status, 200, r.text.slice(0, 300));
  assert.match(JSON.parse(r.text).document.filename, /^x.*\.pdf$/);
});
