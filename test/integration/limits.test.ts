/**
 * The backend takes its limits from the user's `folio.limits.*` settings (asked of the client
 * with `workspace/configuration`, as VS Code answers it), a request's own `limits` override
 * them, and a bad setting is an error naming it (docs/limits.md).
 */
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

let dir: string;
let bomb: string;
const settings: Record<string, unknown> = { 'folio.limits': { documentSeconds: 600, pageMemoryMb: 16 } };
let backend: BackendProcess;

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
  backend = await BackendProcess.start({}, settings);
});

after(async () => {
  await backend.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("folio.limits.pageMemoryMb from the client applies; a request's limits override it; a bad setting is named", async () => {
  const summary = await backend.convert({ uri: pathToFileURL(bomb).href }).result;
  assert.deepEqual(summary.pagesDone, [2]);
  assert.match(
    summary.pageErrors[0]?.message ?? '',
    /^page 1: decoding this page needs more than its memory budget of 16 MB/,
  );

  const generous = await backend.convert({ uri: pathToFileURL(bomb).href, limits: { pageMemoryMb: 2048 } }).result;
  assert.deepEqual(generous.pagesDone, [1, 2], JSON.stringify(generous.pageErrors));

  settings['folio.limits'] = { pageMemoryMb: 5 };
  await assert.rejects(
    backend.convert({ uri: pathToFileURL(bomb).href }).result,
    (e: { code?: number; message: string }) => {
      assert.equal(e.code, FolioErrorCodes.InvalidParams);
      assert.match(e.message, /folio\.limits\.pageMemoryMb must be a whole number from 16 to 65536, not 5/);
      return true;
    },
  );
});
