/**
 * A loopback HTTP server (127.0.0.1, random port) that serves model folders in the Hugging Face
 * hub's URL layout: `/api/models/{repo}/tree/main[/{folder}]` (JSON with sizes, git blob SHA-1
 * for small files and `lfs.oid` SHA-256 for ONNX files) and `/{repo}/resolve/main/{path}`, which
 * redirects ONNX files to a `/cdn/…` URL as the hub does and honours Range requests. Listings come
 * in pages of 4 linked by `Link: rel="next"` headers. `main` resolves to the fixed commit
 * `HUB_COMMIT` (`/api/models/{repo}/revision/main`); listings and files answer for `main` and for
 * that commit. Test knobs: cut a file's transfer after N bytes (once), serve damaged bytes for a
 * file, serve a file without end (a hub lying about its size), redirect a file elsewhere; and
 * the hostile hub of issue 21 item 12: a listing that states another size, a listing without
 * end (64 MB, then held open), API calls never answered, a transfer that stops sending.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface HubServer {
  url: string;
  /** Requests seen, e.g. "GET /x/resolve/main/a range=bytes=10-". */
  log: string[];
  /** Cut the next transfer of `path` after `bytes` bytes. */
  interruptOnce(path: string, bytes: number): void;
  /** Serve `path` with one byte flipped (its listed checksum stays the true one). */
  corrupt(path: string): void;
  /** Serve `path` as an endless chunked stream of zeros (its listing keeps the true size). */
  endless(path: string): void;
  /** Serve `path` with `extra` bytes past its true size, with an honest Content-Length. */
  oversized(path: string, extra: number): void;
  /** Answer `path` with a redirect to `location`. */
  redirect(path: string, location: string): void;
  /** List `path` with this size (file and LFS size) instead of its true one. */
  listSize(path: string, size: number): void;
  /** Answer listings with a JSON array without end (64 MB, then the connection is held). */
  endlessListing(): void;
  /** Never answer API calls (`/api/…`): the connection is held open. */
  silentApi(): void;
  /** Send `bytes` bytes of `path`, then hold the connection without sending more. */
  stallAfter(path: string, bytes: number): void;
  /** Bytes of file bodies written so far (endless streams included). */
  bytesServed(): number;
  close(): Promise<void>;
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

/** The commit `main` resolves to on the loopback hub (a made-up id: this hub is a test double). */
export const HUB_COMMIT = '0123456789abcdef0123456789abcdef01234567';

export async function startHub(repos: Record<string, string>): Promise<HubServer> {
  const log: string[] = [];
  const interrupts = new Map<string, number>();
  const corrupted = new Set<string>();
  const endless = new Set<string>();
  const oversized = new Map<string, number>();
  const redirects = new Map<string, string>();
  let served = 0;
  const listSizes = new Map<string, number>();
  const stalls = new Map<string, number>();
  let endlessList = false;
  let silent = false;
  const held = new Set<import('node:http').ServerResponse>();
  const rev = `(?:main|${HUB_COMMIT})`;
  const isLfs = (p: string) => /\.onnx(_data)?$/.test(p);
  const server: Server = createServer((req, res) => {
    const url = decodeURIComponent(req.url ?? '');
    log.push(`${req.method} ${url}${req.headers.range ? ' range=' + req.headers.range : ''}`);
    const [path, query = ''] = url.split('?');
    if (silent && path.startsWith('/api/')) {
      held.add(res);
      return;
    }
    const revision = /^\/api\/models\/([^/]+\/[^/]+)\/revision\/main$/.exec(path);
    if (revision) {
      if (!repos[revision[1]]) return void res.writeHead(404).end('{"error":"Repository not found"}');
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ id: revision[1], sha: HUB_COMMIT }));
    }
    const tree = new RegExp(`^/api/models/([^/]+/[^/]+)/tree/${rev}/?(.*)$`).exec(path);
    if (tree) {
      const root = repos[tree[1]];
      if (!root) return void res.writeHead(404).end('{"error":"Repository not found"}');
      const folder = tree[2];
      if (endlessList) {
        held.add(res);
        res.writeHead(200, { 'content-type': 'application/json' });
        const item = Buffer.from(JSON.stringify({ type: 'file', oid: '0'.repeat(40), size: 1, path: 'x.json' }) + ',');
        const block = Buffer.concat(Array(Math.ceil(65536 / item.length)).fill(item));
        res.write('[');
        let sent = 0;
        const pump = () => {
          while (!res.destroyed && sent < 64 * 1024 * 1024) {
            sent += block.length;
            if (!res.write(block)) return void res.once('drain', pump);
          }
        };
        return void pump();
      }
      const names = readdirSync(join(root, folder));
      const body = names.map((n) => {
        const rel = folder ? `${folder}/${n}` : n;
        const abs = join(root, rel);
        if (statSync(abs).isDirectory()) return { type: 'directory', oid: '0'.repeat(40), size: 0, path: rel };
        const data = readFileSync(abs);
        const blob = createHash('sha1').update(`blob ${data.length}\0`).update(data).digest('hex');
        const size = listSizes.get(rel) ?? data.length;
        const entry: Record<string, unknown> = { type: 'file', oid: blob, size, path: rel };
        if (isLfs(rel)) entry.lfs = { oid: createHash('sha256').update(data).digest('hex'), size, pointerSize: 134 };
        return entry;
      });
      // Pages of 4 entries with a `Link: <…>; rel="next"` header, as the hub paginates.
      const cursor = Number(/cursor=(\d+)/.exec(query)?.[1] ?? 0);
      const page = body.slice(cursor, cursor + 4);
      const more = cursor + 4 < body.length;
      res.writeHead(200, {
        'content-type': 'application/json',
        ...(more ? { link: `<${path}?cursor=${cursor + 4}>; rel="next"` } : {}),
      });
      return void res.end(JSON.stringify(page));
    }
    const resolve = new RegExp(`^/([^/]+/[^/]+)/resolve/${rev}/(.+)$`).exec(url);
    if (resolve && redirects.has(resolve[2])) {
      res.writeHead(302, { location: redirects.get(resolve[2])! });
      return void res.end();
    }
    if (resolve && isLfs(resolve[2])) {
      res.writeHead(302, { location: `/cdn/${resolve[1]}/${resolve[2]}` });
      return void res.end();
    }
    const cdn = /^\/cdn\/([^/]+\/[^/]+)\/(.+)$/.exec(url);
    const m = resolve ?? cdn;
    if (!m || !repos[m[1]]) return void res.writeHead(404).end('not found');
    let data: Buffer;
    try {
      data = readFileSync(join(repos[m[1]], m[2]));
    } catch {
      return void res.writeHead(404).end('Entry not found');
    }
    if (endless.has(m[2])) {
      // Chunked, no length: zeros until the client hangs up.
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024);
      const pump = () => {
        while (!res.destroyed) {
          served += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
      };
      res.on('close', () => res.removeAllListeners('drain'));
      return void pump();
    }
    if (oversized.has(m[2])) data = Buffer.concat([data, Buffer.alloc(oversized.get(m[2])!)]);
    if (corrupted.has(m[2])) {
      data = Buffer.from(data);
      data[Math.floor(data.length / 2)] ^= 0xff;
    }
    const range = /bytes=(\d+)-/.exec(req.headers.range ?? '');
    const start = range ? Number(range[1]) : 0;
    if (start >= data.length && data.length > 0) return void res.writeHead(416).end();
    const body = data.subarray(start);
    res.writeHead(range ? 206 : 200, {
      'content-length': String(body.length),
      'accept-ranges': 'bytes',
      ...(range ? { 'content-range': `bytes ${start}-${data.length - 1}/${data.length}` } : {}),
    });
    served += body.length;
    const stall = stalls.get(m[2]);
    if (stall !== undefined) {
      held.add(res);
      res.write(body.subarray(0, stall));
      return;
    }
    const cut = interrupts.get(m[2]);
    if (cut !== undefined) {
      interrupts.delete(m[2]);
      res.write(body.subarray(0, cut), () => res.destroy());
      return;
    }
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${addr.port}`,
    log,
    interruptOnce: (p, bytes) => interrupts.set(p, bytes),
    corrupt: (p) => corrupted.add(p),
    endless: (p) => endless.add(p),
    oversized: (p, extra) => oversized.set(p, extra),
    redirect: (p, location) => redirects.set(p, location),
    listSize: (p, size) => listSizes.set(p, size),
    endlessListing: () => (endlessList = true),
    silentApi: () => (silent = true),
    stallAfter: (p, bytes) => stalls.set(p, bytes),
    bytesServed: () => served,
    close: () => {
      for (const r of held) r.destroy();
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

/** Files of a folder relative to it (for comparing installs). */
export function filesOf(dir: string): string[] {
  return walk(dir)
    .map((p) => relative(dir, p))
    .sort();
}
