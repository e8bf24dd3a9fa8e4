/**
 * `folio/pullModel`, the extension's "Download models", through the real backend process: the
 * parameters from the other process are checked, the hub policy of server/modelStore holds (HTTPS
 * only), and a cancel stops a download that hangs on the network.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CancellationTokenSource,
  ResponseError,
  WorkDoneProgress,
  type WorkDoneProgressBegin,
} from 'vscode-languageserver-protocol/node';
import { BackendProcess } from '../helpers/backend';
import { FolioErrorCodes, PullModelRequest } from '../../common/protocol';

const dir = mkdtempSync(join(tmpdir(), 'folio-pull-'));
const started: BackendProcess[] = [];
after(async () => {
  await Promise.all(started.map((b) => b.stop()));
  rmSync(dir, { recursive: true, force: true });
});

async function backend(env: NodeJS.ProcessEnv = {}): Promise<BackendProcess> {
  const b = await BackendProcess.start(env);
  started.push(b);
  return b;
}

const rejection = async (p: Promise<unknown>): Promise<ResponseError<unknown>> => {
  const e = await p.then(
    () => assert.fail('the request succeeded'),
    (err: unknown) => err,
  );
  assert.ok(e instanceof ResponseError, `a JSON-RPC error, got ${String(e)}`);
  return e;
};

test('bad parameters are refused before anything is fetched', async () => {
  const b = await backend();
  for (const [params, word] of [
    [{ repo: '../../etc', dtype: 'fp32', dir, trustHub: true }, 'repo'],
    [{ repo: 'granite-docling', dtype: 'fp64', dir, trustHub: true }, 'dtype'],
    [{ repo: 'granite-docling', dtype: 'fp32', dir: 'relative/models', trustHub: true }, 'dir'],
  ] as const) {
    const e = await rejection(b.connection.sendRequest(PullModelRequest.type, params));
    assert.equal(e.code, FolioErrorCodes.InvalidParams);
    assert.match(e.message, new RegExp(word));
  }
  assert.deepEqual(readdirSync(dir), [], 'nothing written');
});

test('the hub policy holds in the backend: plain HTTP to a hub is refused', async () => {
  const b = await backend({ HF_ENDPOINT: 'http://hub.example.invalid' });
  const e = await rejection(
    b.connection.sendRequest(PullModelRequest.type, { repo: 'heron', dtype: 'fp32', dir, trustHub: true }),
  );
  assert.equal(e.code, FolioErrorCodes.ModelError);
  assert.match(e.message, /HTTPS/);
  assert.deepEqual(readdirSync(dir), [], 'nothing installed');
});

test('a cancel stops a download stuck on the network, with progress begun and no model installed', async () => {
  // A "hub" that accepts the TLS connection and never answers: the download hangs until cancelled.
  const sockets: Socket[] = [];
  let connected!: () => void;
  const sawConnection = new Promise<void>((r) => (connected = r));
  const hub = createServer((s) => {
    sockets.push(s);
    connected();
  });
  await new Promise<void>((r) => hub.listen(0, '127.0.0.1', r));
  try {
    const port = (hub.address() as { port: number }).port;
    const b = await backend({ HF_ENDPOINT: `https://127.0.0.1:${port}` });
    const cts = new CancellationTokenSource();
    const begun: string[] = [];
    b.connection.onProgress(WorkDoneProgress.type, 'pull-1', (v) => {
      begun.push(`${v.kind}:${(v as WorkDoneProgressBegin).title ?? ''}`);
    });
    const pending = b.connection.sendRequest(
      PullModelRequest.type,
      { repo: 'heron', dtype: 'fp32', dir, trustHub: true, workDoneToken: 'pull-1' },
      cts.token,
    );
    await sawConnection;
    cts.cancel();
    const e = await rejection(pending);
    assert.equal(e.code, -32800, `RequestCancelled, got ${e.code}: ${e.message}`);
    assert.ok(begun.includes('begin:Downloading heron'), `work-done progress began (${begun.join(', ')})`);
    assert.ok(
      !readdirSync(dir).some((n) => !n.startsWith('.')),
      `no model folder installed (${readdirSync(dir).join(', ')})`,
    );
  } finally {
    for (const s of sockets) s.destroy();
    await new Promise((r) => hub.close(r));
  }
});
