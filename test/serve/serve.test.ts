/**
 * `folio serve` in-process (the default runner) over real HTTP on loopback: sync and async
 * conversion, poll/result/zip/cancel, 20 clients at once, the OpenAPI document, the API key,
 * and every kind of bad input answered with a clear 4xx JSON error (never a stack trace).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, copyFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { unzipSync, strFromU8 } from 'fflate';
import type { FastifyInstance } from 'fastify';
import { repoRoot, corpusPath } from '../helpers/corpus';
import { PageWorkerPool } from '../../server/worker/pool';
import { convertDocument } from '../../server/convert/convertDocument';
import { buildServer } from '../../server/serve/app';
import { InProcessRunner } from '../../server/serve/tasks';
import { WorkDir } from '../../server/serve/workdir';

const KEY = 'test-key-0123456789';
const SAMPLE = join(repoRoot(), 'test', 'fixtures', 'sample.pdf'); // 2 pages, born-digital
const LONG = corpusPath('opendataloader-samples/1901.03003.pdf'); // 15 pages
let dir: string;
let pool: PageWorkerPool;
let app: FastifyInstance;
let runner: InProcessRunner;
let base: string;
let work: WorkDir;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'folio-serve-'));
  pool = new PageWorkerPool({ size: 2, script: join(repoRoot(), 'dist', 'pageWorker.js') });
  work = new WorkDir(join(dir, 'work'));
  runner = new InProcessRunner(pool, work, { maxPages: 40, timeoutMs: 300_000, retentionMs: 600_000 }, 2);
  const allowed = join(dir, 'allowed');
  copyFileSync(SAMPLE, join(dir, 'outside.pdf'));
  mkdirSync(allowed);
  copyFileSync(SAMPLE, join(allowed, 'inside.pdf'));
  app = await buildServer({
    runner,
    work,
    baseOptions: { engine: 'pipeline' },
    apiKey: KEY,
    maxUploadBytes: 2 * 1024 * 1024,
    allowLocalRoot: allowed,
    version: 'test',
    limits: { maxUploadsInFlight: 20 },
  });
  base = await app.listen({ host: '127.0.0.1', port: 0 });
});
after(async () => {
  await app?.close();
  await runner?.close();
  await pool?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const H = { 'x-api-key': KEY };
function form(
  bytes: Buffer | string,
  name = 'sample.pdf',
  fields: Record<string, string> = {},
  field = 'files',
): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  f.append(field, new Blob([typeof bytes === 'string' ? bytes : new Uint8Array(bytes)]), name);
  return f;
}
async function json(res: Response): Promise<any> {
  const text = await res.text();
  assert.doesNotMatch(text, /\n\s+at /, 'no stack trace');
  return JSON.parse(text);
}

test('sync upload: the Markdown is the in-process conversion of the same file', { timeout: 300_000 }, async () => {
  const f = form(readFileSync(SAMPLE), 'sample.pdf', { image_export_mode: 'referenced' });
  for (const t of ['md', 'json', 'doctags']) f.append('to_formats', t);
  const res = await fetch(`${base}/v1/convert/file`, { method: 'POST', headers: H, body: f });
  const body = await json(res);
  assert.equal(res.status, 200, JSON.stringify(body));
  assert.equal(body.status, 'success');
  assert.equal(body.document.filename, 'sample.pdf');
  const ref = await convertDocument(pool, { uri: SAMPLE, options: { engine: 'pipeline' } }, { page: () => undefined });
  assert.equal(body.document.md_content, ref.markdown);
  assert.equal(body.document.doctags_content, ref.doctags);
  assert.equal(body.document.json_content.schema_name, 'DoclingDocument');
  assert.deepEqual(Object.keys(body.document.json_content.pages), ['1', '2']);
  assert.deepEqual(readdirSync(work.uploads), [], 'the upload was removed after conversion');
});

test(
  'keep_hidden_text (form field and JSON option): hidden PDF text left out by default, kept on request',
  { timeout: 300_000 },
  async () => {
    // The audit's N9 page (security round 4): white, covered, clipped and squeezed lines beside look-alikes.
    const n9 = readFileSync(join(repoRoot(), 'test', 'fixtures', 'hidden', 'n9-raw.pdf'));
    const viaForm = async (fields: Record<string, string>) => {
      const res = await fetch(`${base}/v1/convert/file`, {
        method: 'POST',
        headers: H,
        body: form(n9, 'n9.pdf', fields),
      });
      const body = await json(res);
      assert.equal(res.status, 200, JSON.stringify(body));
      return body.document.md_content as string;
    };
    const dropped = await viaForm({});
    assert.ok(dropped.includes('SEEN GREY:') && !dropped.includes('WHITE:'), dropped);
    const kept = await viaForm({ keep_hidden_text: 'true' });
    for (const h of ['WHITE:', 'COVERED:', 'CLIPPED:', 'SQUEEZED:']) assert.ok(kept.includes(h), `${h} kept:\n${kept}`);
    assert.equal(await viaForm({ keep_hidden_text: 'false' }), dropped);
    const res = await fetch(`${base}/v1/convert/source`, {
      method: 'POST',
      headers: { ...H, 'content-type': 'application/json' },
      body: JSON.stringify({
        options: { keep_hidden_text: true },
        file_sources: [{ base64_string: n9.toString('base64'), filename: 'n9.pdf' }],
      }),
    });
    const body = await json(res);
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.equal(body.document.md_content, kept);
    const bad = await fetch(`${base}/v1/convert/file`, {
      method: 'POST',
      headers: H,
      body: form(n9, 'n9.pdf', { keep_hidden_text: 'maybe' }),
    });
    assert.equal(bad.status, 400);
    assert.match((await json(bad)).detail ?? '', /keep_hidden_text/);
  },
);

test('async submit → poll (pages done/total) → result as JSON and as zip', { timeout: 300_000 }, async () => {
  const f = form(readFileSync(SAMPLE), 'sample.pdf', { page_range: '2', ocr: 'never' });
  f.append('to_formats', 'md');
  f.append('to_formats', 'json');
  const sub = await json(await fetch(`${base}/v1/convert/file/async`, { method: 'POST', headers: H, body: f }));
  assert.match(sub.task_id, /^[0-9a-f-]{36}$/);
  assert.ok(['pending', 'started'].includes(sub.task_status));
  const early = await fetch(`${base}/v1/result/${sub.task_id}`, { headers: H });
  if (early.status !== 200) assert.equal(early.status, 409);
  const st = await json(await fetch(`${base}/v1/status/poll/${sub.task_id}?wait=60`, { headers: H }));
  assert.equal(st.task_status, 'success');
  assert.equal(st.task_type, 'convert');
  assert.deepEqual(st.task_meta, {
    num_docs: 1,
    num_processed: 1,
    num_succeeded: 1,
    num_failed: 0,
    pages_done: 1,
    pages_total: 1,
  });
  const r = await json(await fetch(`${base}/v1/result/${sub.task_id}`, { headers: H }));
  assert.deepEqual(Object.keys(r.document.json_content.pages), ['2']);
  const zip = await fetch(`${base}/v1/result/${sub.task_id}?target=zip`, { headers: H });
  assert.equal(zip.headers.get('content-type'), 'application/zip');
  const files = unzipSync(new Uint8Array(await zip.arrayBuffer()));
  assert.equal(strFromU8(files['sample.md']), r.document.md_content);
  assert.ok(files['sample.doctags.txt'] && files['sample.folio-result.json']);
  assert.equal(JSON.parse(strFromU8(files['sample.json'])).schema_name, 'DoclingDocument');
});

test('cancel a running task: it ends cancelled with the pages already done', { timeout: 300_000 }, async () => {
  const sub = await json(
    await fetch(`${base}/v1/convert/file/async`, {
      method: 'POST',
      headers: H,
      body: form(readFileSync(LONG), 'long.pdf', { ocr: 'never' }),
    }),
  );
  for (let i = 0; i < 600; i++) {
    const s = await json(await fetch(`${base}/v1/status/poll/${sub.task_id}`, { headers: H }));
    if (s.task_meta.pages_done >= 1) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const c = await json(await fetch(`${base}/v1/tasks/${sub.task_id}/cancel`, { method: 'POST', headers: H }));
  assert.equal(c.task_id, sub.task_id);
  const st = await json(await fetch(`${base}/v1/status/poll/${sub.task_id}?wait=30`, { headers: H }));
  assert.equal(st.task_status, 'cancelled');
  assert.ok(st.task_meta.pages_done >= 1 && st.task_meta.pages_done < 15, JSON.stringify(st));
});

test('20 clients at once all get their document', { timeout: 600_000 }, async () => {
  const bytes = readFileSync(SAMPLE);
  const all = await Promise.all(
    Array.from({ length: 20 }, async (_, i) => {
      const res = await fetch(`${base}/v1/convert/file`, {
        method: 'POST',
        headers: H,
        body: form(bytes, `c${i}.pdf`, { page_range: '1', ocr: 'never' }),
      });
      const body = await json(res);
      assert.equal(res.status, 200, JSON.stringify(body));
      return { status: res.status, body };
    }),
  );
  const first = all[0].body.document.md_content;
  assert.ok(first.length > 100);
  all.forEach((r, i) => {
    assert.equal(r.status, 200);
    assert.equal(r.body.document.filename, `c${i}.pdf`);
    assert.equal(r.body.document.md_content, first);
  });
});

test('bad input: clear 4xx JSON errors', { timeout: 120_000 }, async () => {
  const post = (body: BodyInit, headers: Record<string, string> = H, path = '/v1/convert/file') =>
    fetch(`${base}${path}`, { method: 'POST', headers, body });
  const expect = async (p: Promise<Response>, status: number, re: RegExp) => {
    const res = await p;
    const b = await json(res);
    assert.equal(res.status, status, JSON.stringify(b));
    assert.match(b.error.message, re);
  };
  await expect(post(form('hello, not a pdf', 'notes.pdf')), 415, /notes\.pdf is not a PDF/);
  await expect(post(form(Buffer.alloc(0), 'empty.pdf')), 400, /empty\.pdf is empty/);
  await expect(
    post(form(Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(3 * 1024 * 1024)]), 'big.pdf')),
    413,
    /larger than this service's limit/,
  );
  await expect(post(readFileSync(SAMPLE), { ...H, 'content-type': 'application/pdf' }), 415, /multipart\/form-data/);
  await expect(
    post(JSON.stringify({ files: 'x' }), { ...H, 'content-type': 'application/json' }),
    415,
    /multipart\/form-data/,
  );
  const noFile = new FormData();
  noFile.append('ocr', 'never');
  await expect(post(noFile), 400, /no file/);
  await expect(post(form(readFileSync(SAMPLE), '../../etc/evil.pdf')), 400, /path separators/);
  await expect(post(form(readFileSync(SAMPLE), 'a\\b.pdf')), 400, /path separators/);
  await expect(post(form(readFileSync(SAMPLE), 'x.pdf', { ocr: 'sometimes' })), 400, /ocr.*(auto, always, never)/);
  await expect(post(form(readFileSync(SAMPLE), 'x.pdf', { colour: 'red' })), 400, /colour/);
  await expect(post(form(readFileSync(SAMPLE)), { 'x-api-key': 'wrong' }), 401, /API key/);
  await expect(post(form(readFileSync(SAMPLE)), {}), 401, /API key/);
  await expect(fetch(`${base}/v1/status/poll/00000000-0000-4000-8000-000000000000`, { headers: H }), 404, /no task/);
  // A malformed id is an unknown task, 404 as docling-serve answers it.
  await expect(fetch(`${base}/v1/status/poll/..%2F..%2Fetc`, { headers: H }), 404, /no task/);
  // Local paths: only inside the allowed folder.
  await expect(
    post(
      JSON.stringify({ path: join(dir, 'outside.pdf') }),
      { ...H, 'content-type': 'application/json' },
      '/v1/convert/source',
    ),
    404,
    /not a file inside the folder/,
  );
  await expect(
    post(
      JSON.stringify({ path: '../outside.pdf' }),
      { ...H, 'content-type': 'application/json' },
      '/v1/convert/source',
    ),
    404,
    /not a file inside the folder/,
  );
  const ok = await post(
    JSON.stringify({ path: 'inside.pdf', options: { page_range: '1', ocr: 'never' } }),
    { ...H, 'content-type': 'application/json' },
    '/v1/convert/source',
  );
  assert.equal(ok.status, 200);
  assert.equal((await json(ok)).document.filename, 'inside.pdf');
  assert.deepEqual(readdirSync(work.uploads), [], 'rejected uploads leave nothing behind');
});

test('page limit and per-task timeout answer 413 and 504', { timeout: 300_000 }, async () => {
  for (const [limits, status, re] of [
    [{ maxPages: 3, timeoutMs: 0, retentionMs: 60_000 }, 413, /has 15 pages to convert; this service takes at most 3/],
    [{ maxPages: 0, timeoutMs: 300, retentionMs: 60_000 }, 504, /timed out after 0\.3 s/],
  ] as const) {
    const r2 = new InProcessRunner(pool, work, limits, 1);
    const a2 = await buildServer({
      runner: r2,
      work,
      baseOptions: {},
      maxUploadBytes: 4 * 1024 * 1024,
      version: 'test',
    });
    const url = await a2.listen({ host: '127.0.0.1', port: 0 });
    try {
      const res = await fetch(`${url}/v1/convert/file`, {
        method: 'POST',
        body: form(readFileSync(LONG), 'long.pdf', { ocr: 'never' }),
      });
      const b = await json(res);
      assert.equal(res.status, status, JSON.stringify(b));
      assert.match(b.error.message, re);
    } finally {
      await a2.close();
      await r2.close();
    }
  }
});

test('health, readiness and the OpenAPI document need no key; /v1 does', async () => {
  assert.deepEqual(await json(await fetch(`${base}/health`)), { status: 'ok' });
  assert.equal((await fetch(`${base}/ready`)).status, 200);
  const doc = await json(await fetch(`${base}/openapi.json`));
  assert.match(doc.openapi, /^3\./);
  for (const p of [
    '/v1/convert/file',
    '/v1/convert/file/async',
    '/v1/status/poll/{task_id}',
    '/v1/result/{task_id}',
    '/v1/tasks/{task_id}/cancel',
    '/health',
    '/ready',
  ]) {
    assert.ok(doc.paths[p], `OpenAPI lists ${p}`);
  }
});
