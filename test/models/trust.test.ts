/**
 * What a model download trusts (issue 10, item 6): a hub that sends more than it listed is cut
 * off (library and CLI, whose progress output stays small), only HTTPS is accepted (plain HTTP
 * to loopback only when asked, never to another host, not even through a redirect), files
 * without a checksum pinned in the catalog need explicit trust, and pins are checked.
 */
import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pullModel } from '../../server/modelStore/manager';
import { CATALOG, type CatalogEntry } from '../../server/modelStore/catalog';
import { repoRoot } from '../helpers/corpus';
import { tinyModels } from '../vlm/tinyModels';
import { HUB_COMMIT, startHub, type HubServer } from './loopbackHub';

let fx: ReturnType<typeof tinyModels>;
let hub: HubServer;
const dirs: string[] = [];
const freshDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'folio-trust-'));
  dirs.push(d);
  return d;
};
const HERON = 'docling-project/docling-layout-heron-onnx';

before(async () => {
  fx = tinyModels();
  hub = await startHub({ 'onnx-community/granite-docling-258M-ONNX': fx.dirs.page, [HERON]: fx.dirs.heron });
});
after(async () => {
  await hub?.close();
  fx?.cleanup();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Files of the heron fixture as the catalog would pin them. */
function heronPins(): Record<string, { size: number; sha256: string }> {
  const pins: Record<string, { size: number; sha256: string }> = {};
  for (const name of readdirSync(fx.dirs.heron)) {
    const data = readFileSync(join(fx.dirs.heron, name));
    pins[name] = { size: data.length, sha256: createHash('sha256').update(data).digest('hex') };
  }
  return pins;
}

function heronEntry(extra: Partial<CatalogEntry>): CatalogEntry[] {
  return [{ ...CATALOG.find((e) => e.name === 'heron')!, ...extra }];
}

test('a hub that sends more than the listed size is cut off at that size; nothing is installed', async () => {
  const dir = freshDir();
  const file = 'onnx/vision_encoder.onnx';
  const listed = readFileSync(join(fx.dirs.page, file)).length;
  // Honest Content-Length past the listed size: refused before a byte is written.
  hub.oversized(file, 1_000_000);
  await assert.rejects(
    pullModel({ repo: 'granite-docling', dir, baseUrl: hub.url, allowLoopbackHttp: true, trustHub: true }),
    new RegExp(`sent more than the ${listed} bytes expected for onnx/vision_encoder\\.onnx.*nothing was installed`),
  );
  // No length at all, zeros without end: cut off once past the listed size.
  const served = hub.bytesServed();
  hub.endless(file);
  const progress: number[] = [];
  await assert.rejects(
    pullModel({
      repo: 'granite-docling',
      dir,
      baseUrl: hub.url,
      allowLoopbackHttp: true,
      trustHub: true,
      onProgress: (p) => progress.push(p.received / p.total),
    }),
    /sent more than the \d+ bytes expected/,
  );
  const sent = hub.bytesServed() - served;
  assert.ok(
    sent < listed + 16 * 1024 * 1024,
    `the endless transfer was stopped (${sent} bytes served for a ${listed}-byte file)`,
  );
  assert.ok(
    progress.every((r) => r <= 1),
    'progress never passes 100%',
  );
  assert.ok(!existsSync(join(dir, 'granite-docling-258M-ONNX')), 'nothing installed');
  assert.ok(
    !existsSync(join(dir, '.staging', 'granite-docling-258M-ONNX', `${file}.part`)),
    'the over-long partial file is deleted',
  );
});

test('the CLI against a lying hub: exit 1 with a clear message, and its progress output stays small', async () => {
  const dir = freshDir();
  // `endless` was set on vision_encoder.onnx by the test above; a fresh hub keeps this test independent.
  const liar = await startHub({ 'onnx-community/granite-docling-258M-ONNX': fx.dirs.page });
  liar.endless('onnx/decoder_model_merged.onnx_data');
  try {
    const r = await new Promise<{ code: number | null; err: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        [
          join(repoRoot(), 'dist', 'cli.js'),
          'models',
          'pull',
          '--dir',
          dir,
          '--endpoint',
          liar.url,
          '--allow-http-loopback',
          '--trust-hub',
        ],
        { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
        (e, _out, err) => resolve({ code: e ? ((e as { code?: number }).code ?? null) : 0, err }),
      );
      child.stdin?.end();
    });
    assert.equal(r.code, 1, r.err.slice(-2000));
    assert.match(r.err, /sent more than the \d+ bytes expected for onnx\/decoder_model_merged\.onnx_data/);
    assert.ok(r.err.length < 4096, `stderr stayed small (${r.err.length} characters)`);
    assert.ok(liar.bytesServed() < 64 * 1024 * 1024, `the transfer was stopped (${liar.bytesServed()} bytes served)`);
  } finally {
    await liar.close();
  }
});

test('only HTTPS: loopback HTTP needs the explicit switch, other HTTP hosts are refused, redirects too', async () => {
  const dir = freshDir();
  const before = hub.log.length;
  await assert.rejects(
    pullModel({ repo: 'heron', dir, baseUrl: hub.url, trustHub: true }),
    /is refused: plain HTTP to a loopback address is accepted only with --allow-http-loopback/,
  );
  await assert.rejects(
    pullModel({
      repo: 'heron',
      dir,
      baseUrl: 'http://models.example.invalid',
      allowLoopbackHttp: true,
      trustHub: true,
    }),
    /http:\/\/models\.example\.invalid is refused: models are downloaded over HTTPS only/,
  );
  await assert.rejects(
    pullModel({ repo: 'heron', dir, baseUrl: 'ftp://127.0.0.1', allowLoopbackHttp: true, trustHub: true }),
    /HTTPS only/,
  );
  assert.equal(hub.log.length, before, 'no request was made');
  // An allowed hub cannot hand a file over to plain HTTP elsewhere.
  const redirected = await startHub({ [HERON]: fx.dirs.heron });
  redirected.redirect('config.json', 'http://cdn.example.invalid/config.json');
  try {
    await assert.rejects(
      pullModel({ repo: 'heron', dir, baseUrl: redirected.url, allowLoopbackHttp: true, trustHub: true }),
      /A redirect of the model hub to http:\/\/cdn\.example\.invalid is refused: models are downloaded over HTTPS only/,
    );
  } finally {
    await redirected.close();
  }
  assert.ok(!existsSync(join(dir, 'docling-layout-heron-onnx')));
});

test('the listing alone is not enough: unpinned files need trust; pins are checked; the commit is fixed', async () => {
  const dir = freshDir();
  const mark = hub.log.length;
  await assert.rejects(
    pullModel({ repo: 'heron', dir, baseUrl: hub.url, allowLoopbackHttp: true }),
    new RegExp(
      `Folio pins no checksum for \\d+ file\\(s\\) of ${HERON}.*pass --trust-hub \\(the commit used, ${HUB_COMMIT}`,
    ),
  );
  assert.ok(!hub.log.slice(mark).some((l) => l.includes('/resolve/')), 'no file was downloaded');

  // Every file pinned: no trust needed; the files come from the pinned commit, no branch lookup.
  const pins = heronPins();
  const mark2 = hub.log.length;
  const path = await pullModel({
    repo: 'heron',
    dir,
    baseUrl: hub.url,
    allowLoopbackHttp: true,
    catalog: heronEntry({ revision: HUB_COMMIT, pinned: pins }),
  });
  const seen = hub.log.slice(mark2);
  assert.ok(!seen.some((l) => l.includes('/revision/')), 'a pinned commit is not looked up');
  assert.ok(
    seen.filter((l) => l.includes('/resolve/')).every((l) => l.includes(`/resolve/${HUB_COMMIT}/`)),
    seen.join('\n'),
  );
  const manifest = JSON.parse(readFileSync(join(path, 'folio-model.json'), 'utf8')) as { revision: string };
  assert.equal(manifest.revision, HUB_COMMIT);

  // A pin that disagrees with the hub's listing stops the pull before any download.
  const wrong = { ...pins, 'model.onnx': { size: pins['model.onnx'].size, sha256: 'f'.repeat(64) } };
  const dir2 = freshDir();
  await assert.rejects(
    pullModel({
      repo: 'heron',
      dir: dir2,
      baseUrl: hub.url,
      allowLoopbackHttp: true,
      catalog: heronEntry({ pinned: wrong }),
    }),
    new RegExp(`but Folio pins ${pins['model.onnx'].size} bytes with SHA-256 f{64}; nothing was downloaded`),
  );
  assert.ok(!existsSync(join(dir2, 'docling-layout-heron-onnx')));
});

test('listed file names that leave the models folder are refused', async () => {
  const root = freshDir();
  // A hub whose listing names a path with `..` segments (the loopback hub serves real folders).
  const { createServer } = await import('node:http');
  const server = createServer((req, res) => {
    if (req.url?.includes('/revision/')) return void res.end(JSON.stringify({ sha: HUB_COMMIT }));
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify([{ type: 'file', path: '../../outside.txt', size: 1, oid: '0'.repeat(40) }]));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    await assert.rejects(
      pullModel({ repo: 'owner/thing', dir: root, baseUrl: url, allowLoopbackHttp: true, trustHub: true }),
      /names a file "\.\.\/\.\.\/outside\.txt" that is not a plain relative path/,
    );
  } finally {
    await new Promise((r) => server.close(r));
  }
});
