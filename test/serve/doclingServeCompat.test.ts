/**
 * `folio serve` answers what docling-serve 1.31's own clients test for (issue 30): a
 * `presigned_url` target with docling-serve's status and sentence (the recorded pairs in
 * test/fixtures/docling-serve/presigned-url-target.json; docling-client falls back to `inbody` on
 * exactly that answer), `detail` in a 401, 404 "Task not found." for a malformed task id, the
 * uploaded name in a damaged upload's error, `return_as_file` answering the zip, the
 * hierarchical chunk routes, /v1/clear/*, /v1/convert/source/batch; every DoclingDocument the
 * service returns validated against docling-core's schemas. A real server on 127.0.0.1, real
 * conversions.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { unzipSync } from 'fflate';
import type { FastifyInstance } from 'fastify';
import { repoRoot, corpusPath } from '../helpers/corpus';
import { PageWorkerPool } from '../../server/worker/pool';
import { buildServer } from '../../server/serve/app';
import { InProcessRunner } from '../../server/serve/tasks';
import { WorkDir } from '../../server/serve/workdir';
import { cl100kCounter } from '../../server/export/chunks';
import { doclingDocumentErrors } from '../export/doclingSchema';
import { serveValidator } from './doclingServeSchema';

const KEY = 'docling-key-0123456789';
const H = { 'X-Api-Key': KEY };
const PAPER = corpusPath('docling/pdf/2305.03393v1-pg9.pdf');
const SAMPLE = join(repoRoot(), 'test', 'fixtures', 'sample.pdf');
const FIX = join(repoRoot(), 'test', 'fixtures', 'docling-serve');
let dir: string;
let pool: PageWorkerPool;
let app: FastifyInstance;
let runner: InProcessRunner;
let base: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'folio-docling-compat-'));
  pool = new PageWorkerPool({ size: 2, script: join(repoRoot(), 'dist', 'pageWorker.js') });
  const work = new WorkDir(mkdtempSync(join(dir, 'work-')));
  runner = new InProcessRunner(pool, work, { maxPages: 40, timeoutMs: 300_000, retentionMs: 600_000 }, 2);
  app = await buildServer({
    runner,
    work,
    baseOptions: { engine: 'pipeline' },
    apiKey: KEY,
    maxUploadBytes: 8 * 1024 * 1024,
    version: 'test',
  });
  base = await app.listen({ host: '127.0.0.1', port: 0 });
});
after(async () => {
  await app?.close();
  await runner?.close();
  await pool?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

function form(fields: Record<string, string>, name: string, bytes: Buffer): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  f.append('files', new Blob([new Uint8Array(bytes)], { type: 'application/pdf' }), name);
  return f;
}

async function json(res: Response): Promise<any> {
  const text = await res.text();
  assert.doesNotMatch(text, /\n\s+at /, 'no stack trace');
  return JSON.parse(text);
}

interface Pair {
  source: string;
  request: { method: string; path: string; form?: Record<string, string>; file?: string; json?: unknown };
  response: { status: number; body: { detail: string } };
}

test("presigned_url target: docling-serve 1.31's status and detail, as recorded (docling-client falls back on it)", async () => {
  const pairs = (JSON.parse(readFileSync(join(FIX, 'presigned-url-target.json'), 'utf8')) as { pairs: Pair[] }).pairs;
  assert.ok(pairs.length >= 4);
  const b64 = readFileSync(SAMPLE).toString('base64');
  for (const p of pairs) {
    const res = p.request.form
      ? await fetch(base + p.request.path, {
          method: p.request.method,
          headers: H,
          body: form(p.request.form, p.request.file!, readFileSync(SAMPLE)),
        })
      : await fetch(base + p.request.path, {
          method: p.request.method,
          headers: { ...H, 'content-type': 'application/json' },
          body: JSON.stringify(p.request.json).replace('${B64_DATA}', b64),
        });
    const b = await json(res);
    assert.equal(res.status, p.response.status, `${p.request.path}: ${JSON.stringify(b)}`);
    assert.equal(b.detail, p.response.body.detail, `${p.request.path}: docling-serve's sentence`);
    // docling-client's test (service_client/client.py _should_fallback_from_presigned_target).
    if (p.request.path.startsWith('/v1/convert'))
      assert.match(b.detail.toLowerCase(), /artifact storage to be configured/);
  }
});

test('401 carries detail; a malformed or unknown task id is 404 "Task not found." on every task route', async () => {
  const no = await fetch(`${base}/v1/status/poll/00000000-0000-4000-8000-000000000000`);
  assert.equal(no.status, 401);
  const nb = await json(no);
  assert.match(nb.detail, /API key/);
  assert.equal(nb.error.code, 'unauthorized');
  for (const id of ['nonexistent-task', '..%2F..%2Fetc', '00000000-0000-4000-8000-000000000000']) {
    for (const [method, path] of [
      ['GET', `/v1/status/poll/${id}`],
      ['GET', `/v1/result/${id}`],
      ['POST', `/v1/tasks/${id}/cancel`],
    ] as const) {
      const res = await fetch(base + path, { method, headers: H });
      const b = await json(res);
      assert.equal(res.status, 404, `${method} ${path}: ${JSON.stringify(b)}`);
      assert.equal(b.detail, 'Task not found.', 'docling-client reads this as TaskNotFoundError');
      assert.equal(b.error.code, 'unknown_task');
    }
  }
});

test(
  "a damaged upload's error names the uploaded file, never the service's own file name",
  { timeout: 120_000 },
  async () => {
    const bytes = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(2000, 0x41)]);
    const res = await fetch(`${base}/v1/convert/file`, {
      method: 'POST',
      headers: H,
      body: form({}, 'broken.pdf', bytes),
    });
    const text = await res.text();
    assert.ok(res.status >= 400, `${res.status}: ${text.slice(0, 300)}`);
    assert.match(text, /broken\.pdf/, 'the uploaded name');
    assert.doesNotMatch(text, /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.pdf/, 'no generated name');
    // docling-client parses this body as docling's ConvertDocumentResponse: with an ErrorItem
    // outside docling's enums it reported "Response schema mismatch" instead of the reason (issue 42).
    const body = JSON.parse(text);
    assert.deepEqual(serveValidator('ConvertDocumentResponse')(body), [], JSON.stringify(body.errors));
    assert.equal(body.status, 'failure');
    assert.equal(body.errors[0].error_kind, 'damaged');
    assert.match(body.errors[0].error_message, /broken\.pdf/, "the reason, as docling-client's caller reads it");
  },
);

test('return_as_file=true answers the zip (as target_type=zip)', { timeout: 300_000 }, async () => {
  const res = await fetch(`${base}/v1/convert/file`, {
    method: 'POST',
    headers: H,
    body: form({ return_as_file: 'true', do_ocr: 'false' }, 's.pdf', readFileSync(SAMPLE)),
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /application\/zip/);
  const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
  assert.ok(files['s.md'] && files['s.md'].length > 100, `the Markdown in the zip: ${Object.keys(files).join(', ')}`);
});

test(
  '/v1/chunk/hierarchical: one chunk per item (a list together); hybrid chunks keep headings + text within max_tokens; documents valid',
  { timeout: 300_000 },
  async () => {
    const chunk = async (chunker: 'hybrid' | 'hierarchical', fields: Record<string, string>) => {
      const res = await fetch(`${base}/v1/chunk/${chunker}/file`, {
        method: 'POST',
        headers: H,
        body: form(
          { convert_do_ocr: 'false', include_converted_doc: 'true', ...fields },
          'paper.pdf',
          readFileSync(PAPER),
        ),
      });
      const d = await json(res);
      assert.equal(res.status, 200, JSON.stringify(d).slice(0, 300));
      assert.deepEqual(doclingDocumentErrors(d.documents[0].content.json_content), [], `${chunker}: a valid document`);
      return d;
    };
    const tokens = cl100kCounter();
    const hybrid = await chunk('hybrid', { chunking_max_tokens: '64' });
    for (const c of hybrid.chunks) {
      assert.equal(c.num_tokens, tokens(c.text));
      // Text pieces keep to the limit with their headings (a table row too large alone stays whole).
      if (c.doc_items.every((r: string) => r.startsWith('#/texts/')))
        assert.ok(c.num_tokens <= 64, `hybrid chunk ${c.chunk_index}: ${c.num_tokens} tokens with its headings`);
      for (const item of c.metadata.doc_items)
        assert.deepEqual(
          Object.keys(item).filter(
            (k) => !['self_ref', 'parent', 'children', 'content_layer', 'label', 'prov'].includes(k),
          ),
          [],
          'doc items in DocItem shape',
        );
    }
    const hier = await chunk('hierarchical', { chunking_include_raw_text: 'true' });
    assert.ok(hier.chunks.length >= 4, `${hier.chunks.length} hierarchical chunks`);
    const doc = hier.documents[0].content.json_content;
    const itemOf = (ref: string) => {
      const m = /^#\/(texts|tables|pictures|groups)\/(\d+)$/.exec(ref)!;
      return doc[m[1]!][Number(m[2])] as { label: string; parent?: { $ref: string } };
    };
    const labelOf = (ref: string) => itemOf(ref).label;
    for (const c of hier.chunks) {
      const own = c.doc_items.filter((r: string) => labelOf(r) !== 'caption');
      assert.ok(
        // One item: a paragraph with inline math is an inline group's parts, all under that group.
        own.length === 1 ||
          own.every((r: string) => labelOf(r) === 'list_item') ||
          (new Set(own.map((r: string) => itemOf(r).parent?.$ref)).size === 1 &&
            /^#\/groups\//.test(itemOf(own[0]).parent?.$ref ?? '')),
        `hierarchical chunk ${c.chunk_index}: one item (or a list's items): ${c.doc_items.join(' ')}`,
      );
      assert.ok(c.text.endsWith(c.raw_text));
    }
    assert.ok(hier.chunks.some((c: any) => c.headings?.includes('5.1 Hyper Parameter Optimization')));
    const bad = await fetch(`${base}/v1/chunk/hierarchical/source`, {
      method: 'POST',
      headers: { ...H, 'content-type': 'application/json' },
      body: JSON.stringify({
        chunking_options: { chunker: 'hybrid' },
        sources: [{ kind: 'file', filename: 'p.pdf', base64_string: readFileSync(PAPER).toString('base64') }],
      }),
    });
    assert.equal(bad.status, 400);
    assert.match((await json(bad)).detail, /"hierarchical" on \/v1\/chunk\/hierarchical/);
  },
);

test(
  '/v1/clear/converters and /v1/clear/results answer ok; cleared results are gone; /v1/convert/source/batch refused as docling-serve without storage',
  {
    timeout: 300_000,
  },
  async () => {
    const conv = await fetch(`${base}/v1/clear/converters`, { headers: H });
    assert.equal(conv.status, 200);
    assert.deepEqual(await json(conv), { status: 'ok' });
    assert.equal((await fetch(`${base}/v1/clear/converters`)).status, 401, 'behind the key');

    const res = await fetch(`${base}/v1/convert/file`, {
      method: 'POST',
      headers: H,
      body: form({ do_ocr: 'false', page_range: '1' }, 's.pdf', readFileSync(SAMPLE)),
    });
    const d = await json(res);
    assert.equal(res.status, 200);
    const poll = () => fetch(`${base}/v1/status/poll/${d.task_id}`, { headers: H });
    assert.equal((await poll()).status, 200, 'kept before the clear');
    const keep = await fetch(`${base}/v1/clear/results?older_then=3600`, { headers: H });
    assert.deepEqual(await json(keep), { status: 'ok' });
    assert.equal((await poll()).status, 200, 'younger than an hour: kept');
    const clear = await fetch(`${base}/v1/clear/results?older_then=0`, { headers: H });
    assert.deepEqual(await json(clear), { status: 'ok' });
    assert.equal((await poll()).status, 404, 'cleared');

    for (const [target, re] of [
      [{ kind: 'presigned_url' }, /artifact storage to be configured/],
      [{ kind: 's3', endpoint: 'x', bucket: 'b' }, /use \/v1\/convert\/source\/async/],
    ] as const) {
      const b = await fetch(`${base}/v1/convert/source/batch`, {
        method: 'POST',
        headers: { ...H, 'content-type': 'application/json' },
        body: JSON.stringify({ sources: [{ kind: 'http', url: 'https://example.com/a.pdf' }], target }),
      });
      assert.equal(b.status, 422);
      assert.match((await json(b)).detail, re);
    }
  },
);
