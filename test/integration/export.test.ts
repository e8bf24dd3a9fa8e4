/**
 * The extension's non-Markdown outputs (`folio.outputFormat`) through the real backend process,
 * the way src/commands/convertToExport.ts runs them: `folio/convert` with the pages streamed,
 * then `folio/export` with those pages (docling, chunks) or the summary's DocTags (doctags), on
 * test/fixtures/sample.pdf. Also: parameters are checked, and a long export runs off the
 * JSON-RPC thread (another request is answered meanwhile) and is cancellable.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { CancellationTokenSource } from 'vscode-languageserver-protocol/node';
import { BackendProcess } from '../helpers/backend';
import { corpusPath, repoRoot } from '../helpers/corpus';
import { docChunkLinesErrors, doclingDocumentErrors } from '../export/doclingSchema';
import { baseDocItem } from '../../server/export/doclingChunks';
import { OUTPUT_FORMATS } from '../../common/requestModel';
import { ExportRequest, type ConvertSummary, type ExportParams, type PageResult } from '../../common/protocol';

let backend: BackendProcess;
let summary: ConvertSummary;
let pages: PageResult[];
const pdfPath = join(repoRoot(), 'test', 'fixtures', 'sample.pdf');
const uri = pathToFileURL(pdfPath).href;

before(async () => {
  backend = await BackendProcess.start();
  // The options the extension sends for an export (no page images, no pictures folder: `none`).
  const run = backend.convert({ uri, options: { renderImages: false, keepFurniture: false } });
  summary = await run.result;
  pages = run.pages.map((p) => p.page).sort((a, b) => a.page - b.page);
  assert.ok(
    pages.length > 0 && pages.length === summary.pagesDone.length,
    'pages streamed through the partial-result token',
  );
});
after(async () => {
  await backend.stop();
});

const exportText = (
  params: Omit<ExportParams, 'uri' | 'pages'> & { pages?: PageResult[] },
  token?: CancellationTokenSource,
) => backend.connection.sendRequest(ExportRequest.type, { uri, pages, ...params }, token?.token);

const norm = (s: string) => s.replace(/\s+/g, ' ');

test("the file names are the CLI's", () => {
  const ext = Object.fromEntries(Object.entries(OUTPUT_FORMATS).map(([f, spec]) => [f, spec.ext]));
  assert.deepEqual(ext, {
    md: '.md',
    doctags: '.doctags.txt',
    json: '.folio-result.json',
    docling: '.docling.json',
    chunks: '.chunks.jsonl',
  });
});

test("docling: a DoclingDocument valid against docling-core's schemas, with the PDF's text and origin", async () => {
  const out = await exportText({ format: 'docling', images: 'none' });
  const doc = JSON.parse(out.text) as {
    name: string;
    origin: { filename: string; binary_hash: number };
    texts: { text: string; label: string }[];
    pages: Record<string, unknown>;
  };
  assert.deepEqual(doclingDocumentErrors(doc), [], 'a valid DoclingDocument');
  assert.equal(doc.name, 'sample');
  assert.equal(doc.origin.filename, 'sample.pdf');
  assert.ok(doc.origin.binary_hash > 0, 'the origin hash of the PDF');
  assert.equal(Object.keys(doc.pages).length, pages.length, 'one page entry per page converted');
  const all = norm(doc.texts.map((t) => t.text).join(' '));
  assert.ok(all.includes('Sliding Window Attention for Efficient Inference'), 'the title');
  assert.ok(all.includes('combines grouped-query attention with a sliding window'), 'the abstract');
  assert.ok(
    doc.texts.some((t) => t.label === 'title' || t.label === 'section_header'),
    'headings keep their label',
  );
});

test('chunks: every line a chunk in order, within the size, together holding the text', async () => {
  const out = await exportText({ format: 'chunks', images: 'none', chunkSize: 400 });
  assert.ok(out.text.endsWith('\n'));
  const lines = out.text.trimEnd().split('\n');
  const chunks = lines.map(
    (l) =>
      JSON.parse(l) as {
        index: number;
        text: string;
        headings: string[];
        pages: number[];
        size: number;
        oversize?: boolean;
      },
  );
  assert.ok(chunks.length >= 3, `several chunks (${chunks.length})`);
  chunks.forEach((c, i) => {
    assert.equal(c.index, i);
    assert.ok(c.text.length > 0 && (c.size <= 400 || c.oversize), `chunk ${i} within 400 characters`);
    assert.ok(c.pages.every((p) => p >= 1 && p <= summary.pageCount));
  });
  const all = norm(chunks.map((c) => c.text).join(' '));
  assert.ok(all.includes('combines grouped-query attention with a sliding window'));
  assert.ok(
    chunks.some((c) => c.headings.includes('Sliding Window Attention for Efficient Inference')),
    'heading paths',
  );
});

test('chunks with chunkSchema docling: Docling DocChunks and the DoclingDocument their doc_items resolve in', async () => {
  const out = await exportText({ format: 'chunks', images: 'none', chunkSize: 400, chunkSchema: 'docling' });
  assert.ok(out.document, 'the document comes with the chunks');
  const doc = JSON.parse(out.document!) as Record<string, { self_ref: string }[]>;
  assert.deepEqual(doclingDocumentErrors(doc), [], 'a valid DoclingDocument');
  assert.deepEqual(docChunkLinesErrors(out.text), [], 'every line a valid docling-core DocChunk');
  const chunks = out.text
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as { meta: { doc_items: { self_ref: string }[] } });
  assert.ok(chunks.length >= 3);
  for (const c of chunks) {
    assert.ok(c.meta.doc_items.length > 0);
    for (const d of c.meta.doc_items) {
      const [, list, i] = /^#\/(\w+)\/(\d+)$/.exec(d.self_ref)!;
      assert.deepEqual(baseDocItem(doc[list!]![Number(i)]!), d, `${d.self_ref} resolves to the same item`);
    }
  }
  await assert.rejects(
    exportText({ format: 'chunks', chunkSchema: 'langchain' as 'flat' }),
    (e: { code: number; message: string }) => e.code === -32602 && /chunkSchema/.test(e.message),
  );
});

test("doctags: the summary's DocTags, as the extension writes them", () => {
  const text = summary.doctags + '\n';
  assert.ok(text.startsWith('<doctag>') && text.trimEnd().endsWith('</doctag>'));
  assert.ok(norm(text).includes('Sliding Window Attention for Efficient Inference'));
});

test('pictures: embedded as data URIs or linked under the pictures folder, as the extension asks', async () => {
  // The options convertToExport.ts sends for `embed` (crops in a temporary folder) and `link`.
  const dir = mkdtempSync(join(tmpdir(), 'folio-export-pictures-'));
  try {
    const pics = pathToFileURL(corpusPath('docling/pdf/picture_classification.pdf')).href;
    const run = backend.convert({
      uri: pics,
      options: { renderImages: false, markdownDir: dir, assetsDir: join(dir, 'pics.assets') },
    });
    await run.result;
    const picPages = run.pages.map((p) => p.page);
    const pictures = async (images: 'embed' | 'link' | 'none') => {
      const out = await backend.connection.sendRequest(ExportRequest.type, {
        uri: pics,
        format: 'docling',
        pages: picPages,
        images,
        picturesDir: dir,
      });
      return (JSON.parse(out.text) as { pictures: { image?: { uri: string } }[] }).pictures;
    };
    const embedded = await pictures('embed');
    assert.ok(embedded.length >= 1, 'the PDF has pictures');
    assert.ok(
      embedded.every((p) => p.image?.uri.startsWith('data:image/png;base64,')),
      'embedded',
    );
    const linked = await pictures('link');
    assert.ok(
      linked.every((p) => p.image?.uri.startsWith('pics.assets/')),
      `linked under the pictures folder: ${linked.map((p) => p.image?.uri).join(', ')}`,
    );
    assert.ok(
      (await pictures('none')).every((p) => p.image === undefined),
      'left out',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('bad parameters are refused naming the field', async () => {
  await assert.rejects(
    exportText({ format: 'docling', picturesDir: `${repoRoot()}/../x` }),
    (e: { code: number; message: string }) => e.code === -32602 && /picturesDir/.test(e.message),
  );
  await assert.rejects(
    exportText({ format: 'md' as 'docling' }),
    (e: { code: number; message: string }) => e.code === -32602 && /format/.test(e.message),
  );
  // Pictures are read from the files the regions name (issue 21 item 2): none outside the pictures folder.
  const withPicture = (imagePath: string) => ({
    ...pages[0]!,
    regions: pages[0]!.regions.map((r, i) => (i === 0 ? { ...r, imagePath } : r)),
  });
  await assert.rejects(
    exportText({
      format: 'docling',
      images: 'embed',
      picturesDir: repoRoot(),
      pages: [withPicture('../../../etc/passwd')],
    }),
    (e: { code: number; message: string }) => e.code === -32602 && /pages\[0\].*imagePath.*picturesDir/.test(e.message),
  );
  await assert.rejects(
    exportText({ format: 'chunks', images: 'embed', picturesDir: repoRoot(), pages: [withPicture('/etc/passwd')] }),
    (e: { code: number }) => e.code === -32602,
  );
  // A link in the Markdown text is only text: never read.
  const linkOnly = { ...pages[0]!, markdown: pages[0]!.markdown + '\n\n![x](/etc/passwd)\n' };
  const out = await exportText({ format: 'docling', images: 'embed', picturesDir: repoRoot(), pages: [linkOnly] });
  assert.ok(
    !out.text.includes(Buffer.from('root:x:').toString('base64').slice(0, 8)),
    'no byte of /etc/passwd in the export',
  );
  await assert.rejects(
    exportText({ format: 'chunks', pages: [{ page: 0 } as PageResult] }),
    (e: { code: number; message: string }) => e.code === -32602 && /pages\[0\]/.test(e.message),
  );
});

test('a long export runs off the JSON-RPC thread and stops on cancel', async () => {
  // 4,000 pages of the sample (renumbered, 26 MB of parameters): seconds of exporting.
  const many = Array.from({ length: 4000 }, (_, i) => ({ ...pages[i % pages.length]!, page: i + 1 }));
  const cts = new CancellationTokenSource();
  let settled = false;
  const from = backend.logs.length;
  const long = exportText({ format: 'docling', images: 'none', pages: many }, cts).finally(() => (settled = true));
  long.catch(() => undefined);
  // Events, not time: the backend says when the export is running in its worker thread…
  await backend.waitForLog(/export: docling of 4000 page\(s\) running in a worker thread/, from);
  // …then another request is answered while it runs: the JSON-RPC thread is free.
  const t1 = Date.now();
  const small = await exportText({ format: 'chunks', images: 'none' });
  const smallMs = Date.now() - t1;
  assert.ok(small.text.length > 0);
  assert.equal(settled, false, 'another request was answered while the long export was still running');
  // A cancel is answered as cancelled (a finished export would have answered with its text).
  cts.cancel();
  const t2 = Date.now();
  await assert.rejects(long, (e: { code: number }) => e.code === -32800, 'answered as cancelled');
  console.log(
    `export: a one-document export answered in ${smallMs} ms during a 4,000-page one; its cancel answered in ${Date.now() - t2} ms (figures, not asserted)`,
  );
  // The backend still serves after the cancel.
  assert.ok((await exportText({ format: 'chunks', images: 'none' })).text.length > 0);
});
