/**
 * Issue 21 item 12: a model download is bounded by Folio, not by the hub. Against the loopback
 * hub (test/models/loopbackHub.ts, the hub's URL layout over real HTTP on 127.0.0.1; the real hub
 * cannot be reached here) serving the tiny real-format models:
 * - a listing that says a weight file is 5 GB: before, that became the download's cap; now the
 *   catalog's cap refuses it before a byte of any file is fetched;
 * - a listing without end: before, read whole (the issue measured 2.2 GB in 7 s); now cut at
 *   8 MB a page;
 * - API calls never answered and a transfer that stops: before, waited forever; now stopped
 *   after the request and idle times.
 */
import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pullModel } from '../../server/modelStore/manager';
import { tinyModels } from '../vlm/tinyModels';
import { startHub, type HubServer } from '../models/loopbackHub';

const GRANITE = 'onnx-community/granite-docling-258M-ONNX';
let fx: ReturnType<typeof tinyModels>;
const cleanup: (() => unknown)[] = [];

before(() => {
  fx = tinyModels();
});
after(async () => {
  for (const c of cleanup.reverse()) await c();
  fx?.cleanup();
});

async function hub(): Promise<HubServer> {
  const h = await startHub({ [GRANITE]: fx.dirs.page });
  cleanup.push(() => h.close());
  return h;
}
function dir(): string {
  const d = mkdtempSync(join(tmpdir(), 'folio-sec-models-'));
  cleanup.push(() => rmSync(d, { recursive: true, force: true }));
  return d;
}
const pull = (h: HubServer, extra: object = {}) =>
  pullModel({ repo: 'granite-docling', dir: dir(), baseUrl: h.url, allowLoopbackHttp: true, trustHub: true, ...extra });
const fileRequests = (h: HubServer) => h.log.filter((l) => /\/resolve\/|\/cdn\//.test(l));

test(
  'a listing that says 5 GB is refused by the catalog cap before any file is fetched',
  { timeout: 60_000 },
  async () => {
    const h = await hub();
    h.listSize('onnx/vision_encoder.onnx', 5 * 1024 ** 3);
    await assert.rejects(
      pull(h),
      /The hub lists onnx\/vision_encoder\.onnx of onnx-community\/granite-docling-258M-ONNX as 5120 MB, more than the 1024 MB Folio allows for that file; nothing was downloaded/,
    );
    assert.deepEqual(fileRequests(h), []);
    // A config file is capped too (64 MB), and so is the whole download.
    const h2 = await hub();
    h2.listSize('config.json', 100 * 1024 ** 2);
    await assert.rejects(pull(h2), /config\.json .* as 100 MB, more than the 64 MB/);
    const h3 = await hub();
    h3.listSize('onnx/vision_encoder.onnx', 1000 * 1024 ** 2);
    h3.listSize('onnx/decoder_model_merged.onnx', 1000 * 1024 ** 2);
    h3.listSize('onnx/embed_tokens.onnx', 1000 * 1024 ** 2);
    await assert.rejects(
      pull(h3),
      /The hub lists 30\d\d MB of files for .*, more than the 2048 MB Folio allows for this model/,
    );
    assert.deepEqual(fileRequests(h3), []);
  },
);

test('a listing without end is cut at the page cap; memory stays small', { timeout: 60_000 }, async () => {
  const h = await hub();
  h.endlessListing();
  const base = process.memoryUsage().rss;
  let peak = base;
  const poll = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  try {
    await assert.rejects(
      pull(h),
      /sent more than the 8388608 bytes Folio reads from the hub's API; nothing was downloaded/,
    );
  } finally {
    clearInterval(poll);
  }
  const growth = Math.round((peak - base) / 1024 / 1024);
  process.stdout.write(`# endless listing refused, RSS +${growth} MB\n`);
  assert.ok(growth < 150, `RSS grew ${growth} MB`);
});

test('an API call never answered times out, saying so', { timeout: 60_000 }, async () => {
  const h = await hub();
  h.silentApi();
  const t = Date.now();
  await assert.rejects(
    pull(h, { requestMs: 1000 }),
    /The model hub did not answer http:\/\/127\.0\.0\.1:\d+\/api\/models\/.* within 1 s; try again later/,
  );
  assert.ok(Date.now() - t < 20_000);
});

test('a transfer that stops sending is stopped after the idle time (resumable)', { timeout: 60_000 }, async () => {
  const h = await hub();
  h.stallAfter('config.json', 10);
  await assert.rejects(
    pull(h, { idleMs: 1000 }),
    /The download of config\.json was interrupted at 10 of \d+ bytes \(nothing arrived for 1 s\); run the download again to resume/,
  );
});
