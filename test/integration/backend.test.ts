/**
 * Integration through the real backend process (dist/server.js over stdio JSON-RPC): streaming
 * order, work-done progress, cancellation latency, page selection, and bad input.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { BackendProcess } from '../helpers/backend';
import { corpusPath } from '../helpers/corpus';
import { makePdf, loremPage } from '../helpers/pdfWriter';
import { FolioErrorCodes } from '../../common/protocol';

let backend: BackendProcess;
let dir: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'folio-int-'));
  backend = await BackendProcess.start();
});

after(async () => {
  await backend.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('pages stream in page order with progress, and the summary matches them', async () => {
  const pdf = corpusPath('pdfjs-test-pdfs/tracemonkey.pdf');
  const run = backend.convert({ uri: pathToFileURL(pdf).href, options: { cacheDir: join(dir, 'cache') } });
  const summary = await run.result;
  assert.equal(summary.pageCount, 14);
  assert.deepEqual(
    run.pages.map((p) => p.page.page),
    Array.from({ length: 14 }, (_, i) => i + 1),
  );
  assert.deepEqual(
    summary.pagesDone,
    run.pages.map((p) => p.page.page),
  );
  assert.equal(run.progress.at(-1), 'page 14/14');
  // Pages arrive over time, not all at the end.
  assert.ok(run.pages[0].at < run.pages[13].at, 'first page before the last');
  const first = run.pages[0].page;
  assert.ok(first.markdown.includes('Trace'), 'page 1 text');
  assert.ok(first.regions.length > 3, 'regions on page 1');
  for (const r of first.regions) {
    if (!r.mdRange) continue;
    assert.ok(r.mdRange.start >= 0 && r.mdRange.end <= first.markdown.length && r.mdRange.start < r.mdRange.end);
  }
  assert.ok(summary.markdown.startsWith(first.markdown), 'document markdown begins with page 1');
  assert.ok(summary.doctags.startsWith('<doctag>') && summary.doctags.includes('<page_break>'));
});

test('page selection converts exactly the pages asked', async () => {
  const pdf = corpusPath('pdfjs-test-pdfs/tracemonkey.pdf');
  const run = backend.convert({ uri: pdf, pages: '2-3,7' });
  const summary = await run.result;
  assert.deepEqual(
    run.pages.map((p) => p.page.page),
    [2, 3, 7],
  );
  assert.deepEqual(summary.pagesDone, [2, 3, 7]);
});

test('cancel mid-document is answered within 1 s and keeps the pages done', async () => {
  // OCR on every page makes each page take seconds of blocking onnxruntime work in the page
  // workers, so cancellation must interrupt real work, not just stop scheduling.
  const pdf = join(dir, 'ocr-long.pdf');
  writeFileSync(pdf, makePdf(Array.from({ length: 30 }, (_, i) => loremPage(i + 1))));
  const run = backend.convert({ uri: pdf, options: { ocr: 'always' } });
  const deadline = Date.now() + 180_000;
  while (run.pages.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.ok(run.pages.length >= 1, 'a first page arrived');
  assert.equal(run.pages[0].page.ocr, true, 'the page was read with OCR');
  const t0 = Date.now();
  run.cancel();
  const summary = await run.result;
  const latency = Date.now() - t0;
  assert.ok(latency < 1000, `cancel answered in ${latency} ms`);
  assert.equal(summary.cancelled, true);
  assert.ok(summary.pagesDone.length >= 1 && summary.pagesDone.length < 30);
  assert.deepEqual(
    summary.pagesDone,
    run.pages.map((p) => p.page.page),
  );
  // The backend still works afterwards (its workers were replaced).
  const again = await backend.convert({ uri: corpusPath('pdfjs-test-pdfs/tracemonkey.pdf'), pages: '1' }).result;
  assert.deepEqual(again.pagesDone, [1]);
});

async function expectError(path: string, code: number, pattern: RegExp, password?: string) {
  await assert.rejects(backend.convert({ uri: path, password }).result, (e: { code?: number; message?: string }) => {
    assert.equal(e.code, code, `code for ${path}: ${e.message}`);
    assert.match(String(e.message), pattern);
    return true;
  });
}

test('bad input: each gives a clear error naming the file, and the backend survives', async () => {
  const zero = join(dir, 'zero.pdf');
  writeFileSync(zero, '');
  await expectError(zero, FolioErrorCodes.InvalidPdf, /zero\.pdf.*empty/);

  const notPdf = join(dir, 'notes.pdf');
  writeFileSync(notPdf, 'Just some text that is not a PDF at all.\n'.repeat(20));
  await expectError(notPdf, FolioErrorCodes.InvalidPdf, /notes\.pdf/);

  const good = readFileSync(corpusPath('selfmade-example/sample.libreoffice.pdf'));
  const truncated = join(dir, 'truncated.pdf');
  writeFileSync(truncated, good.subarray(0, Math.floor(good.length / 3)));
  const t = await backend.convert({ uri: truncated }).result.then(
    (s) => ({ ok: true as const, s }),
    (e: { message: string }) => ({ ok: false as const, e }),
  );
  // A truncated file either converts what can be read or fails with a message naming it.
  if (t.ok) assert.ok(t.s.pagesDone.length + t.s.pageErrors.length > 0);
  else assert.match(t.e.message, /truncated\.pdf/);

  await expectError(join(dir, 'missing.pdf'), FolioErrorCodes.FileNotFound, /missing\.pdf/);
  const encrypted = corpusPath('docling/pdf/2206.01062_pg3.password.pdf');
  await expectError(encrypted, FolioErrorCodes.PasswordRequired, /password/i);
  await expectError(encrypted, FolioErrorCodes.PasswordIncorrect, /password/i, 'not-the-password');

  const empty = join(dir, 'nopages.pdf');
  writeFileSync(empty, makePdf([]));
  await expectError(empty, FolioErrorCodes.EmptyDocument, /nopages\.pdf/);

  // Still alive and converting.
  const ok = await backend.convert({
    uri: pathToFileURL(corpusPath('selfmade-example/sample.libreoffice.pdf')).href,
    pages: '1',
  }).result;
  assert.deepEqual(ok.pagesDone, [1]);
  assert.equal(backend.exitCode, null);
});

test('a 20,000 × 20,000 pt page converts (rendering capped) and a 2,000-page PDF streams', async () => {
  const huge = join(dir, 'huge.pdf');
  writeFileSync(
    huge,
    makePdf([{ width: 20000, height: 20000, lines: ['A very large page', 'with a little text.'], fontSize: 200 }]),
  );
  const h = backend.convert({ uri: huge, options: { renderImages: true, cacheDir: join(dir, 'cache') } });
  const hs = await h.result;
  assert.deepEqual(hs.pagesDone, [1]);
  assert.match(hs.markdown, /very large page/);
  const img = h.pages[0].page;
  assert.ok(
    img.imageWidth !== undefined && img.imageWidth * (img.imageHeight ?? 0) <= 26_000_000,
    `image ${img.imageWidth}×${img.imageHeight}`,
  );

  const many = join(dir, 'many.pdf');
  writeFileSync(many, makePdf(Array.from({ length: 2000 }, (_, i) => loremPage(i + 1))));
  const run = backend.convert({ uri: many });
  const deadline = Date.now() + 60_000;
  while (run.pages.length < 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  assert.ok(run.pages.length >= 5, 'first pages stream early');
  run.cancel();
  const s = await run.result;
  assert.equal(s.pageCount, 2000);
  assert.equal(s.cancelled, true);
});
