/**
 * The extension sends the user's `folio.limits.*` with every request, as it sends the other
 * settings (issue 33 item 5): the request here is built by the extension's own builder
 * (src/convertClient.ts, loaded against the `vscode` stand-in) from settings, and the real
 * backend applies its limits. The backend asks the client for nothing: a client that would answer
 * `workspace/configuration` with a lower limit (as VS Code did when the backend pulled them) is
 * not asked, and the request's limits (the defaults when absent) apply.
 */
// First: it answers require('vscode') for the extension modules imported after it.
import { FakeUri } from '../helpers/vscodeFake';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { deflateSync } from 'node:zlib';
import { BackendProcess } from '../helpers/backend';
import { writeStreamPdf } from '../helpers/pdfWriter';
import { FolioErrorCodes } from '../../common/protocol';
import { convertParams } from '../../src/convertClient';
import { folioConfig } from '../helpers/folioConfig';
import type { FolioConfig } from '../../src/context';
import { repoRoot } from '../helpers/corpus';
import type * as vscode from 'vscode';

let dir: string;
let bomb: string;
const sample = join(repoRoot(), 'test', 'fixtures', 'sample.pdf');
let backend: BackendProcess;

/** The request the extension sends for `pdf` with these `folio.limits.*` settings. */
function request(pdf: string, limits: FolioLimits) {
  const config = folioConfig({ engine: 'pipeline', modelsDir: '', limits });
  return convertParams(config, join(dir, 'cache'), {
    pdfUri: FakeUri.file(pdf) as unknown as vscode.Uri,
    options: { renderImages: false },
  });
}
type FolioLimits = FolioConfig['limits'];

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'folio-int-limits-'));
  bomb = join(dir, 'bomb.pdf');
  const content = deflateSync(
    Buffer.concat([Buffer.from('BT /F1 12 Tf 72 720 Td (Bomb) Tj ET\n', 'latin1'), Buffer.alloc(96 * 1024 * 1024)]),
  );
  writeFileSync(
    bomb,
    writeStreamPdf([
      { width: 612, height: 792, stream: content, flate: true },
      { width: 612, height: 792, stream: Buffer.from('BT /F1 12 Tf 72 720 Td (Fine) Tj ET\n', 'latin1') },
    ]),
  );
  // A client that answers workspace/configuration with a page limit of 1, were it asked.
  backend = await BackendProcess.start({}, { 'folio.limits': { maxPages: 1, pageMemoryMb: 16 } });
});

after(async () => {
  await backend.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('the backend asks the client for no limit: a request without limits takes the defaults', async () => {
  const summary = await backend.convert({ uri: pathToFileURL(sample).href }).result;
  assert.deepEqual(summary.pagesDone, [1, 2]);
});

test('folio.limits.pageMemoryMb pushed with the request applies: the bomb page alone fails', async () => {
  const params = request(bomb, { documentSeconds: 600, pageMemoryMb: 16, maxPages: 10 });
  assert.deepEqual(params.limits, { documentSeconds: 600, pageMemoryMb: 16, maxPages: 10 });
  const summary = await backend.convert(params).result;
  assert.deepEqual(summary.pagesDone, [2]);
  assert.match(
    summary.pageErrors[0]?.message ?? '',
    /^page 1: decoding this page needs more than its memory budget of 16 MB/,
  );
});

test('folio.limits.maxPages pushed with the request refuses a document past it (TooLarge, naming the setting)', async () => {
  await assert.rejects(
    backend.convert(request(sample, { documentSeconds: 3600, pageMemoryMb: 512, maxPages: 1 })).result,
    (e: { code?: number; message: string }) => {
      assert.equal(e.code, FolioErrorCodes.TooLarge);
      assert.match(e.message, /sample\.pdf has 2 pages, more than the page limit of 1.*folio\.limits\.maxPages/);
      return true;
    },
  );
  const ok = await backend.convert(request(sample, { documentSeconds: 3600, pageMemoryMb: 512, maxPages: 2 })).result;
  assert.deepEqual(ok.pagesDone, [1, 2]);
});

test('a bad folio.limits setting is named by the extension before anything is sent', () => {
  assert.throws(
    () => request(bomb, { documentSeconds: 600, pageMemoryMb: 5, maxPages: 10 }),
    /folio\.limits\.pageMemoryMb must be a whole number from 16 to 65536, not 5/,
  );
});
