/** `folio models pull|list|remove` through the built CLI against the loopback hub. */
import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../helpers/corpus';
import { tinyModels } from '../vlm/tinyModels';
import { startHub, type HubServer } from './loopbackHub';

const execFileP = promisify(execFile);
let fx: ReturnType<typeof tinyModels>;
let hub: HubServer;
let dir: string;

before(async () => {
  fx = tinyModels();
  hub = await startHub({
    'onnx-community/granite-docling-258M-ONNX': fx.dirs.page,
    'docling-project/docling-layout-heron-onnx': fx.dirs.heron,
  });
  dir = mkdtempSync(join(tmpdir(), 'folio-cli-models-'));
});
after(async () => {
  await hub?.close();
  fx?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

async function folio(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await execFileP(
      process.execPath,
      [join(repoRoot(), 'dist', 'cli.js'), 'models', ...args],
      { timeout: 60_000 },
    );
    return { code: 0, out: stdout, err: stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, out: x.stdout, err: x.stderr };
  }
}

test('pull all, list, remove; usage and offline errors with exit codes', async () => {
  const pull = await folio('pull', 'all', '--dir', dir, '--endpoint', hub.url, '--allow-http-loopback', '--trust-hub');
  assert.equal(pull.code, 0, pull.err);
  assert.match(pull.out, /installed granite-docling in .*granite-docling-258M-ONNX/);
  assert.match(pull.out, /installed heron in .*docling-layout-heron-onnx/);
  const list = await folio('list', '--dir', dir);
  assert.match(list.out, /^docling-layout-heron-onnx|heron {2}\d/m);
  assert.match(list.out, /granite-docling \[fp32\] {2}[\d.]+ MB/);
  const rm = await folio('remove', 'heron', '--dir', dir);
  assert.equal(rm.code, 0);
  assert.ok(!existsSync(join(dir, 'docling-layout-heron-onnx')));
  assert.equal((await folio('remove', 'heron', '--dir', dir)).code, 1);
  const usage = await folio('pull', '--dtype', 'fp64');
  assert.equal(usage.code, 2);
  assert.match(usage.err, /--dtype must be one of/);
  // A port that was just free: nothing listens there.
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as { port: number }).port;
  await new Promise((r) => probe.close(r));
  const offline = await folio(
    'pull',
    '--dir',
    dir,
    '--endpoint',
    `http://127.0.0.1:${port}`,
    '--allow-http-loopback',
    '--trust-hub',
  );
  assert.equal(offline.code, 1);
  assert.match(
    offline.err,
    new RegExp(`Cannot reach http://127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\).*pipeline engine keeps working`),
  );
});
