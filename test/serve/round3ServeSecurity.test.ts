/**
 * Security round 3 (issue 34), the service's outputs through `folio serve --redis` (a real Redis,
 * a real `folio worker`, the real service on 127.0.0.1):
 * - F10: two documents with one stem in a zip: the second's pictures went to `a-2.assets/` but
 *   its Markdown still linked `a.assets/…` (a broken picture, or the first document's).
 * - F11: `café.pdf` lost its embedded pictures (an ASCII-only asset rule in jobs.ts).
 * - F12: a 250-character file name was a 500 (the default pictures folder passed 255 bytes).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { unzipSync, strFromU8 } from 'fflate';
import { repoRoot } from '../helpers/corpus';
import { startRedis, type RedisHandle } from '../helpers/redisServer';
import { startQueueService, startQueueWorker, stopQueueWorker, type TestService } from '../helpers/serviceRig';

const fixture = (n: string) => readFileSync(join(repoRoot(), 'test', 'fixtures', 'security', n));
let redis: RedisHandle;
let worker: ChildProcess;
let dir: string;
let service: TestService;
let url: string;

before(async () => {
  redis = await startRedis();
  dir = mkdtempSync(join(tmpdir(), 'folio-serve-r3-'));
  worker = startQueueWorker(redis.url, dir);
  service = await startQueueService(redis.url, dir);
  url = service.url;
});
after(async () => {
  await service?.close();
  stopQueueWorker(worker);
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function convert(files: [Buffer, string][], fields: Record<string, string>): Promise<Response> {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  for (const [bytes, name] of files) f.append('files', new Blob([new Uint8Array(bytes)]), name);
  return fetch(`${url}/v1/convert/file`, { method: 'POST', body: f });
}

test('F10: the second document of one stem links the pictures the zip holds for it', { timeout: 400_000 }, async () => {
  const res = await convert(
    [
      [fixture('caption-hostname.pdf'), 'a.pdf'],
      [fixture('caption-devzero.pdf'), 'a.pdf'],
    ],
    { image_export_mode: 'referenced', to_formats: 'md', target_type: 'zip', do_ocr: 'false' },
  );
  assert.equal(res.status, 200, await res.clone().text());
  const zip = unzipSync(new Uint8Array(await res.arrayBuffer()));
  const names = Object.keys(zip);
  for (const md of ['a.md', 'a-2.md']) {
    assert.ok(names.includes(md), names.join(', '));
    const links = [...strFromU8(zip[md]!).matchAll(/\]\(<?([^()<>\s]+\.png)>?\)/g)].map((m) => decodeURI(m[1]!));
    assert.ok(links.length > 0, `${md} links a picture`);
    for (const l of links) {
      assert.ok(names.includes(l), `${md} links ${l}, which the zip does not hold (${names.join(', ')})`);
      assert.ok(l.startsWith(`${md.replace(/\.md$/, '')}.assets/`), `${md} links ${l}, another document's picture`);
    }
  }
});

test('F11: a document named café.pdf keeps its embedded pictures through the queue', { timeout: 400_000 }, async () => {
  for (const name of ['cafe.pdf', 'café.pdf']) {
    const res = await convert([[fixture('caption-hostname.pdf'), name]], {
      image_export_mode: 'embedded',
      to_formats: 'md',
      do_ocr: 'false',
    });
    const text = await res.text();
    assert.equal(res.status, 200, text.slice(0, 300));
    const b = JSON.parse(text) as { document: { md_content: string }; errors?: unknown[] };
    assert.match(b.document.md_content, /\]\(data:image\/png;base64,/, `${name}: no embedded picture`);
    assert.doesNotMatch(text, /could not be embedded/, name);
  }
});

test('F12: a 250-character file name through the queue is converted, not a 500', { timeout: 400_000 }, async () => {
  const long = `${'n'.repeat(250)}.pdf`;
  const res = await convert([[fixture('caption-hostname.pdf'), long]], { to_formats: 'md', do_ocr: 'false' });
  const text = await res.text();
  assert.equal(res.status, 200, text.slice(0, 300));
  assert.equal((JSON.parse(text) as { document: { filename: string } }).document.filename, long);
});
