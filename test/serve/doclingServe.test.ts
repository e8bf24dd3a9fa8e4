/**
 * `folio serve` as a drop-in for docling-serve's v1 API (matched: docling-serve 1.31.0). The
 * requests are docling-serve's own published examples (test/fixtures/docling-serve/, sources in
 * its README), sent the way its documentation's clients send them: plain HTTP, forms with one
 * field per list value (as httpx encodes `data=`), JSON bodies, the async polling loop of its
 * usage guide. A real server on 127.0.0.1, real conversions.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { unzipSync, strFromU8 } from 'fflate';
import sharp from 'sharp';
import type { FastifyInstance } from 'fastify';
import { repoRoot, corpusPath } from '../helpers/corpus';
import { PageWorkerPool } from '../../server/worker/pool';
import { buildServer, type ServeConfig } from '../../server/serve/app';
import { InProcessRunner } from '../../server/serve/tasks';
import { WorkDir } from '../../server/serve/workdir';
import { cl100kCounter } from '../../server/export/chunks';
import { doclingDocumentErrors } from '../export/doclingSchema';

const KEY = 'docling-key-0123456789';
const H = { 'X-Api-Key': KEY };
const PAPER = corpusPath('docling/pdf/2305.03393v1-pg9.pdf'); // 1 page: "5.1 Hyper Parameter Optimization"
const SAMPLE = join(repoRoot(), 'test', 'fixtures', 'sample.pdf');
const FIX = join(repoRoot(), 'test', 'fixtures', 'docling-serve');
const fixture = (name: string) => JSON.parse(readFileSync(join(FIX, name), 'utf8'));
let dir: string;
let pool: PageWorkerPool;
const closers: (() => Promise<void>)[] = [];
let base: string;

async function start(over: Partial<ServeConfig> = {}): Promise<string> {
  const work = new WorkDir(mkdtempSync(join(dir, 'work-')));
  const runner = new InProcessRunner(pool, work, { maxPages: 40, timeoutMs: 300_000, retentionMs: 600_000 }, 2);
  const app: FastifyInstance = await buildServer({
    runner,
    work,
    baseOptions: { engine: 'pipeline' },
    apiKey: KEY,
    maxUploadBytes: 8 * 1024 * 1024,
    version: 'test',
    ...over,
  });
  closers.push(async () => {
    await app.close();
    await runner.close();
  });
  return app.listen({ host: '127.0.0.1', port: 0 });
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'folio-docling-serve-'));
  pool = new PageWorkerPool({ size: 2, script: join(repoRoot(), 'dist', 'pageWorker.js') });
  base = await start();
});
after(async () => {
  for (const c of closers) await c();
  await pool?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/** httpx's `data=` encoding: a list value becomes one field per item, booleans "true"/"false". */
function httpxForm(data: Record<string, unknown>, files: { name: string; bytes: Buffer; type: string }[]): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(data))
    for (const x of Array.isArray(v) ? v : [v])
      f.append(k, typeof x === 'boolean' ? (x ? 'true' : 'false') : String(x));
  for (const file of files) f.append('files', new Blob([new Uint8Array(file.bytes)], { type: file.type }), file.name);
  return f;
}

async function body(res: Response): Promise<any> {
  const text = await res.text();
  assert.doesNotMatch(text, /\n\s+at /, 'no stack trace');
  return JSON.parse(text);
}

test(
  'usage.md "File endpoint" curl example: md and text, the unused options named in warnings',
  { timeout: 300_000 },
  async () => {
    const f = new FormData();
    for (const [k, v] of fixture('convert-file-curl.json') as [string, string][]) f.append(k, v);
    f.append(
      'files',
      new Blob([new Uint8Array(readFileSync(PAPER))], { type: 'application/pdf' }),
      '2305.03393v1-pg9.pdf',
    );
    const res = await fetch(`${base}/v1/convert/file`, {
      method: 'POST',
      headers: { accept: 'application/json', ...H },
      body: f,
    });
    const b = await body(res);
    assert.equal(res.status, 200, JSON.stringify(b).slice(0, 500));
    const shape = fixture('response-shapes.json').convert;
    for (const k of Object.keys(shape)) assert.ok(k in b, `response has ${k}`);
    for (const k of Object.keys(shape.document)) assert.ok(k in b.document, `document has ${k}`);
    assert.equal(b.status, 'success');
    assert.equal(typeof b.processing_time, 'number');
    assert.deepEqual(b.errors, []);
    assert.ok(
      b.document.md_content.includes('## 5.1 Hyper Parameter Optimization'),
      "the check docling-serve's own test makes",
    );
    assert.match(b.document.text_content, /^5\.1 Hyper Parameter Optimization$/m);
    assert.doesNotMatch(b.document.text_content, /^#+ 5\.1|<t[rd]>/m, 'text has no Markdown or HTML markup');
    assert.equal(b.document.json_content, null, 'json was not asked for');
    assert.equal(b.document.doctags_content, null);
    for (const name of ['ocr_engine', 'pdf_backend', 'table_mode', 'ocr_lang'])
      assert.ok(
        b.warnings.some((w: string) => w.startsWith(name)),
        `a warning names ${name}: ${JSON.stringify(b.warnings)}`,
      );
    assert.ok(
      !b.warnings.some((w: string) => /^(do_ocr|force_ocr|abort_on_error|from_formats|image_export_mode)/.test(w)),
      'mapped options or defaults warn nothing',
    );
  },
);

test(
  'docling-serve tests/test_1-file-all-outputs.py, as its httpx client sends it: every check of that test holds',
  { timeout: 300_000 },
  async () => {
    const res = await fetch(`${base}/v1/convert/file`, {
      method: 'POST',
      headers: H,
      body: httpxForm(fixture('test-1-file-all-outputs.json'), [
        { name: '2305.03393v1-pg9.pdf', bytes: readFileSync(PAPER), type: 'application/pdf' },
      ]),
    });
    assert.equal(res.status, 200, 'Response should be 200 OK');
    const data = await body(res);
    assert.ok('document' in data);
    assert.ok(data.document.md_content.includes('## 5.1 Hyper Parameter Optimization'));
    // The test's JSON check is on Python's json.dumps: schema_name is the first key.
    assert.ok(JSON.stringify(data.document.json_content).startsWith('{"schema_name":"DoclingDocument"'));
    assert.ok(data.document.text_content.includes('Hyper Parameter Optimization'));
    assert.ok('doctags_content' in data.document && data.document.doctags_content.includes('<doctag>'));
    assert.equal(data.document.html_content, null);
    assert.ok(
      data.warnings.some((w: string) => /html/.test(w)),
      'html asked for and not produced: said so',
    );
    const doc = data.document.json_content;
    assert.deepEqual(doclingDocumentErrors(doc), [], "json_content is valid against docling-core's schemas");
    assert.equal(doc.origin.filename, '2305.03393v1-pg9.pdf');
    assert.equal(doc.origin.mimetype, 'application/pdf');
    assert.ok(doc.texts.length > 5 && doc.tables.length >= 1, `texts ${doc.texts.length}, tables ${doc.tables.length}`);
  },
);

test(
  'usage.md "Source endpoint" curl payload and "File as base64": file_sources, v1 sources, async with the guide\'s polling loop',
  { timeout: 300_000 },
  async () => {
    const b64 = readFileSync(PAPER).toString('base64');
    const curl = fixture('convert-source-curl.json');
    delete curl.http_sources; // the published example fetches arXiv; the same options with the file inline:
    curl.file_sources = [{ base64_string: b64, filename: '2305.03393v1-pg9.pdf' }];
    const res = await fetch(`${base}/v1/convert/source`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', accept: 'application/json', ...H },
      body: JSON.stringify(curl),
    });
    const data = await body(res);
    assert.equal(res.status, 200, JSON.stringify(data).slice(0, 500));
    assert.match(data.document.md_content, /## 5\.1 Hyper Parameter Optimization/);
    assert.equal(data.document.json_content.schema_name, 'DoclingDocument');
    assert.equal(data.document.filename, '2305.03393v1-pg9.pdf');

    const plain = readFileSync(join(FIX, 'convert-source-base64.json'), 'utf8').replace('${B64_DATA}', b64);
    const r2 = await fetch(`${base}/v1/convert/source`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...H },
      body: plain,
    });
    const d2 = await body(r2);
    assert.equal(r2.status, 200, JSON.stringify(d2).slice(0, 300));
    assert.equal(d2.document.filename, 'pdf-to-convert.pdf');
    assert.equal(d2.document.json_content, null, 'default to_formats: md only');
    assert.equal(d2.document.md_content, data.document.md_content);

    // v1 `sources`, async: the guide's loop (`while task["task_status"] not in ("success", "failure")`).
    const sub = await fetch(`${base}/v1/convert/source/async`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...H },
      body: JSON.stringify({
        options: { to_formats: ['md', 'json'] },
        sources: [{ kind: 'file', base64_string: b64, filename: 'p.pdf' }],
      }),
    });
    let task = await body(sub);
    for (const k of Object.keys(fixture('response-shapes.json').task)) assert.ok(k in task, `task has ${k}`);
    while (!['success', 'failure'].includes(task.task_status)) {
      task = await body(await fetch(`${base}/v1/status/poll/${task.task_id}?wait=5`, { headers: H }));
    }
    assert.equal(task.task_status, 'success');
    const result = await body(await fetch(`${base}/v1/result/${task.task_id}`, { headers: H }));
    assert.equal(result.document.md_content, data.document.md_content);
    assert.equal(result.document.json_content.name, 'p');
  },
);

test(
  'several files in one request, PNG and JPEG scans among them: the answer is a zip as docling-serve gives',
  { timeout: 300_000 },
  async () => {
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="300"><rect width="100%" height="100%" fill="white"/><text x="40" y="170" font-family="DejaVu Sans, sans-serif" font-size="72" fill="black">Scanned invoice 4711</text></svg>',
    );
    const png = await sharp(svg).png().toBuffer();
    const jpeg = await sharp(svg).jpeg().toBuffer();
    const one = await fetch(`${base}/v1/convert/file`, {
      method: 'POST',
      headers: H,
      body: httpxForm({ to_formats: ['md', 'json'] }, [{ name: 'scan.png', bytes: png, type: 'image/png' }]),
    });
    const d = await body(one);
    assert.equal(one.status, 200, JSON.stringify(d).slice(0, 300));
    assert.equal(d.document.json_content.origin.mimetype, 'image/png');
    assert.match(d.document.md_content, /invoice/i, 'the scan was read by OCR');
    const res = await fetch(`${base}/v1/convert/file`, {
      method: 'POST',
      headers: H,
      body: httpxForm({ to_formats: ['md', 'json'] }, [
        { name: 'sample.pdf', bytes: readFileSync(SAMPLE), type: 'application/pdf' },
        { name: 'paper.pdf', bytes: readFileSync(PAPER), type: 'application/pdf' },
        { name: 'photo.jpg', bytes: jpeg, type: 'image/jpeg' },
      ]),
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/zip');
    const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
    for (const n of ['sample.md', 'sample.json', 'paper.md', 'paper.json', 'photo.md', 'photo.json'])
      assert.ok(files[n], `zip has ${n}: ${Object.keys(files).join(', ')}`);
    assert.match(strFromU8(files['paper.md']!), /## 5\.1 Hyper Parameter Optimization/);
    assert.equal(JSON.parse(strFromU8(files['photo.json']!)).origin.mimetype, 'image/jpeg');
  },
);

test(
  '/v1/chunk/hybrid: Docling-shaped chunks whose doc_items resolve in the converted DoclingDocument',
  { timeout: 300_000 },
  async () => {
    const res = await fetch(`${base}/v1/chunk/hybrid/file`, {
      method: 'POST',
      headers: H,
      body: httpxForm(
        {
          convert_do_ocr: false,
          chunking_max_tokens: 128,
          chunking_include_raw_text: true,
          include_converted_doc: true,
        },
        [{ name: 'paper.pdf', bytes: readFileSync(PAPER), type: 'application/pdf' }],
      ),
    });
    const d = await body(res);
    assert.equal(res.status, 200, JSON.stringify(d).slice(0, 300));
    assert.ok(d.chunks.length > 2, `${d.chunks.length} chunks`);
    const tokens = cl100kCounter();
    const doc = d.documents[0].content.json_content;
    assert.deepEqual(doclingDocumentErrors(doc), [], "the converted document is valid against docling-core's schemas");
    assert.equal(d.documents[0].kind, 'ExportResult');
    assert.equal(doc.schema_name, 'DoclingDocument');
    const resolve = (ref: string) => {
      const m = /^#\/(texts|tables|pictures|groups)\/(\d+)$/.exec(ref);
      return m ? doc[m[1]!][Number(m[2])] : undefined;
    };
    for (const c of d.chunks) {
      assert.equal(c.filename, 'paper.pdf');
      assert.ok(c.doc_items.length > 0);
      for (const ref of c.doc_items) assert.equal(resolve(ref)?.self_ref, ref, `${ref} resolves`);
      assert.equal(c.num_tokens, tokens(c.text), 'num_tokens counts the text sent');
      // A table row or a word larger than the limit stays whole (Folio's chunker, docs/formats.md); text pieces keep to it.
      if (c.doc_items.every((r: string) => r.startsWith('#/texts/')))
        assert.ok(tokens(c.raw_text) <= 128, `chunk ${c.chunk_index}: ${tokens(c.raw_text)} tokens`);
      assert.ok(c.text.endsWith(c.raw_text), 'text = headings + raw text');
      assert.deepEqual(c.page_numbers, [1]);
    }
    assert.ok(d.chunks.some((c: any) => c.headings?.includes('5.1 Hyper Parameter Optimization')));
    assert.deepEqual(
      d.chunks.map((c: any) => c.chunk_index),
      d.chunks.map((_: unknown, i: number) => i),
    );

    // The JSON form, without the converted document.
    const r2 = await fetch(`${base}/v1/chunk/hybrid/source`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...H },
      body: JSON.stringify({
        convert_options: { do_ocr: false },
        chunking_options: { max_tokens: 128, tokenizer: 'sentence-transformers/all-MiniLM-L6-v2' },
        sources: [{ kind: 'file', base64_string: readFileSync(PAPER).toString('base64'), filename: 'paper.pdf' }],
      }),
    });
    const d2 = await body(r2);
    assert.equal(r2.status, 200, JSON.stringify(d2).slice(0, 300));
    assert.deepEqual(
      d2.chunks.map((c: any) => c.doc_items),
      d.chunks.map((c: any) => c.doc_items),
    );
    assert.equal(d2.documents[0].content.json_content, null);
    assert.equal(d2.chunks[0].raw_text, null);
  },
);

test(
  'http_sources: off unless --allow-http-sources; loopback refused unless --allow-private-sources',
  { timeout: 300_000 },
  async () => {
    const pdf = readFileSync(SAMPLE);
    const origin: Server = createServer((req, res) => {
      if (req.url === '/docs/sample.pdf') res.writeHead(200, { 'content-type': 'application/pdf' }).end(pdf);
      else if (req.url === '/big') res.writeHead(200).end(Buffer.alloc(9 * 1024 * 1024));
      else if (req.url === '/hop') res.writeHead(302, { location: '/docs/sample.pdf' }).end();
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
    const port = (origin.address() as { port: number }).port;
    try {
      const send = async (url: string, at: string) => {
        const res = await fetch(`${at}/v1/convert/source`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ...H },
          body: JSON.stringify({ http_sources: [{ url }] }),
        });
        return { status: res.status, b: await body(res) };
      };
      const off = await send(`http://127.0.0.1:${port}/docs/sample.pdf`, base);
      assert.equal(off.status, 400);
      assert.match(off.b.detail, /http_sources are off.*--allow-http-sources/);
      const noPrivate = await start({ httpSources: { enabled: true, allowPrivate: false } });
      for (const url of [
        `http://127.0.0.1:${port}/docs/sample.pdf`,
        `http://localhost:${port}/docs/sample.pdf`,
        `http://[::1]:${port}/x`,
        'http://169.254.169.254/latest/meta-data/',
      ]) {
        const r = await send(url, noPrivate);
        assert.equal(r.status, 400, `${url}: ${JSON.stringify(r.b)}`);
        assert.match(r.b.detail, /private or local address/);
      }
      const open = await start({ httpSources: { enabled: true, allowPrivate: true } });
      const ok = await send(`http://127.0.0.1:${port}/docs/sample.pdf`, open);
      assert.equal(ok.status, 200, JSON.stringify(ok.b).slice(0, 300));
      assert.equal(ok.b.document.filename, 'sample.pdf');
      assert.ok(ok.b.document.md_content.length > 100);
      const hop = await send(`http://127.0.0.1:${port}/hop`, open);
      assert.equal(hop.status, 200);
      const big = await send(`http://127.0.0.1:${port}/big`, open);
      assert.equal(big.status, 413, JSON.stringify(big.b));
      const missing = await send(`http://127.0.0.1:${port}/nope.pdf`, open);
      assert.equal(missing.status, 502);
      assert.match(missing.b.detail, /HTTP 404/);
    } finally {
      origin.close();
    }
  },
);

test('/version, /openapi.json with request and response schemas, /docs with no remote resource', async () => {
  const v = await body(await fetch(`${base}/version`));
  assert.equal(v.folio, 'test');
  assert.match(v['docling-serve-api'], /^1\.31\.0/);
  const doc = await body(await fetch(`${base}/openapi.json`));
  const file = doc.paths['/v1/convert/file'].post;
  const form = file.requestBody.content['multipart/form-data'].schema.properties;
  for (const k of [
    'files',
    'to_formats',
    'do_ocr',
    'force_ocr',
    'image_export_mode',
    'pipeline',
    'table_mode',
    'page_range',
    'md_page_break_placeholder',
    'target_type',
  ])
    assert.ok(form[k], `form field ${k} described`);
  assert.equal(
    file.responses['200'].content['application/json'].schema.$ref,
    '#/components/schemas/ConvertDocumentResponse',
  );
  assert.ok(file.responses['200'].content['application/zip']);
  assert.ok(doc.paths['/v1/convert/source'].post.requestBody.content['application/json'].schema.properties.sources);
  assert.ok(
    doc.paths['/v1/chunk/hybrid/file'].post.requestBody.content['multipart/form-data'].schema.properties
      .chunking_max_tokens,
  );
  for (const s of [
    'ConvertDocumentResponse',
    'ExportDocumentResponse',
    'TaskStatusResponse',
    'ChunkDocumentResponse',
    'ChunkedDocumentResultItem',
    'ConvertDocumentsOptions',
  ])
    assert.ok(doc.components.schemas[s], `schema ${s}`);
  const page = await fetch(`${base}/docs`);
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'none'/);
  const html = await page.text();
  assert.match(html, /\/v1\/chunk\/hybrid\/file/);
  assert.doesNotMatch(html, /<script|(src|href)="(https?:)?\/\//i, 'no script, nothing remote');
});

test(
  'docling option values Folio cannot take get a clear 400 naming the option; md_page_break_placeholder and page_range are honoured',
  { timeout: 300_000 },
  async () => {
    const post = async (data: Record<string, unknown>) => {
      const res = await fetch(`${base}/v1/convert/file`, {
        method: 'POST',
        headers: H,
        body: httpxForm(data, [{ name: 's.pdf', bytes: readFileSync(SAMPLE), type: 'application/pdf' }]),
      });
      return { status: res.status, b: await body(res) };
    };
    const bad = [
      [{ to_formats: 'pdf' }, /to_formats/],
      [{ page_range: [3, 1] }, /page_range/],
      [{ image_export_mode: 'inline' }, /image_export_mode/],
      [{ do_ocr: 'maybe' }, /do_ocr/],
      [{ from_formats: 'docx' }, /from_formats/],
    ] as const;
    for (const [data, re] of bad) {
      const r = await post(data);
      assert.ok(r.status === 400 || r.status === 415, `${JSON.stringify(data)} → ${r.status}`);
      assert.match(r.b.detail, re);
    }
    const ok = await post({ md_page_break_placeholder: '<!-- page break -->', page_range: [1, 2], do_ocr: false });
    assert.equal(ok.status, 200, JSON.stringify(ok.b).slice(0, 300));
    assert.equal(ok.b.document.md_content.split('<!-- page break -->').length, 2);
    const second = await post({ page_range: [2, 2], to_formats: 'json' });
    assert.deepEqual(Object.keys(second.b.document.json_content.pages), ['2']);
  },
);

test(
  'an async request of several documents: one task, its status adds them up, a failed one is named',
  { timeout: 300_000 },
  async () => {
    const broken = Buffer.from('%PDF-1.4\nthis is not a PDF body at all\n%%EOF\n');
    const sub = await fetch(`${base}/v1/convert/file/async`, {
      method: 'POST',
      headers: H,
      body: httpxForm({ do_ocr: false }, [
        { name: 'sample.pdf', bytes: readFileSync(SAMPLE), type: 'application/pdf' },
        { name: 'broken.pdf', bytes: broken, type: 'application/pdf' },
      ]),
    });
    let task = await body(sub);
    assert.equal(sub.status, 200, JSON.stringify(task));
    assert.equal(task.task_meta.num_docs, 2);
    while (['pending', 'started'].includes(task.task_status))
      task = await body(await fetch(`${base}/v1/status/poll/${task.task_id}?wait=5`, { headers: H }));
    assert.equal(task.task_status, 'partial_success', JSON.stringify(task));
    assert.deepEqual(
      { ...task.task_meta, pages_done: undefined, pages_total: undefined },
      { num_docs: 2, num_processed: 2, num_succeeded: 1, num_failed: 1, pages_done: undefined, pages_total: undefined },
    );
    assert.match(task.error_message, /^broken\.pdf: /);
    const res = await fetch(`${base}/v1/result/${task.task_id}`, { headers: H });
    assert.equal(res.headers.get('content-type'), 'application/zip');
    const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
    assert.ok(files['sample.md'] && strFromU8(files['sample.md']).length > 100);
    assert.ok(!files['broken.md'], 'nothing made up for the failed document');
  },
);
