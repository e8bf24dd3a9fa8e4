/**
 * Resource limits on untrusted PDFs (issue 10, items 4 and 5; docs/limits.md):
 * - the render pixel cap is never exceeded: a page too large to render within it gets no page
 *   image, crops or OCR, and a warning;
 * - a decompression bomb (a small file whose content stream inflates to hundreds of MB) fails
 *   its page against the page memory budget, quickly and with bounded memory, while the other
 *   pages convert;
 * - the document time budget stops a conversion, keeping the pages done;
 * - a cancel during a long pdf.js parse stops the worker promptly (it is terminated there, never
 *   while onnxruntime runs).
 * The PDFs are generated here (FlateDecode of zeros: a few hundred KB on disk).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { analyzePage, openPdf } from '../../server/pipeline/index';
import { cappedScale, MAX_PIXELS, MAX_SIDE, MIN_SCALE, renderPage } from '../../server/pdf/render';
import { PageWorkerPool } from '../../server/worker/pool';
import { convertDocument } from '../../server/convert/convertDocument';
import { parseConvertArgs } from '../../server/convertCommand/args';
import { resolveLimits } from '../../server/worker/limits';
import { FolioErrorCodes } from '../../common/protocol';
import { repoRoot } from '../helpers/corpus';
import { writeStreamPdf } from '../helpers/pdfWriter';
import { options } from './analyze';

const dir = mkdtempSync(join(tmpdir(), 'folio-limits-'));
const text = (s: string) => Buffer.from(`BT /F1 12 Tf 72 720 Td (${s}) Tj ET\n`, 'latin1');
/** A content stream: a line of text, then `mb` MiB of zeros (whitespace to the content lexer). */
const bombStream = (mb: number, label: string) =>
  deflateSync(Buffer.concat([text(label), Buffer.alloc(mb * 1024 * 1024)]), { level: 9 });

let pool: PageWorkerPool;
before(() => {
  pool = new PageWorkerPool({ size: 1, script: join(repoRoot(), 'dist', 'pageWorker.js') });
});
after(async () => {
  await pool.dispose(1000);
  rmSync(dir, { recursive: true, force: true });
});

/** Peak RSS of this process (worker threads included) while `fn` runs, above the RSS before it. */
async function peakRss<T>(fn: () => Promise<T>): Promise<{ value: T; growthMb: number; ms: number }> {
  const base = process.memoryUsage.rss();
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 25);
  const t0 = Date.now();
  try {
    const value = await fn();
    return { value, growthMb: (Math.max(peak, process.memoryUsage.rss()) - base) / 1e6, ms: Date.now() - t0 };
  } finally {
    clearInterval(timer);
  }
}

test('the pixel cap holds for every page size; a page beyond it is not rendered', () => {
  const sizes = [1, 72, 612, 20_000, 100_000, 1_600_000, 1_700_000, 14_400_000, 1e9, 1e15];
  for (const w of sizes) {
    for (const h of sizes) {
      for (const wanted of [0.25, 1, 2, 200 / 72, 8]) {
        const s = cappedScale(w, h, wanted);
        if (s === undefined) continue;
        const pw = Math.ceil(w * s);
        const ph = Math.ceil(h * s);
        assert.ok(
          pw * ph <= MAX_PIXELS && pw <= MAX_SIDE && ph <= MAX_SIDE,
          `${w}×${h} pt at ${wanted} → ${pw}×${ph} px`,
        );
        assert.ok(s <= wanted && s >= MIN_SCALE, `${w}×${h}: scale ${s}`);
      }
    }
  }
  assert.equal(cappedScale(14_400_000, 14_400_000, 2), undefined, 'a 14.4-million-point page is not rendered');
  assert.equal(cappedScale(1, 10_000_000, 2), undefined, 'nor a sliver ten million points long');
  for (const bad of [0, -5, NaN, Infinity]) assert.equal(cappedScale(bad, 792, 2), undefined, String(bad));
  assert.ok((cappedScale(20_000, 20_000, 2) ?? 0) > 0, 'a large real page is still rendered, smaller');
});

test('a huge page (MediaBox 14,400,000 pt square): text read, no render, crops or OCR, a warning', async () => {
  const path = join(dir, 'huge.pdf');
  writeFileSync(path, writeStreamPdf([{ width: 14_400_000, height: 14_400_000, stream: text('Huge page text') }]));
  const doc = await openPdf(path);
  try {
    const { value: a, growthMb } = await peakRss(() =>
      analyzePage(
        doc,
        1,
        options({ ocr: 'always', renderImages: true, assetsDir: join(dir, 'assets'), markdownDir: dir }),
      ),
    );
    assert.ok(
      a.warnings.some((w) =>
        /14400000 × 14400000 pt, too large to render within the 25-megapixel cap: its page image, picture crops and OCR were skipped/.test(
          w,
        ),
      ),
      a.warnings.join('\n'),
    );
    assert.equal(a.image, undefined, 'no page image');
    assert.equal(a.ocr, false, 'no OCR');
    assert.ok(
      a.items.some((i) => i.text.includes('Huge page text')),
      'the text layer is still read',
    );
    assert.ok(growthMb < 300, `memory stayed bounded (+${growthMb.toFixed(0)} MB)`);
    const page = await doc.doc.getPage(1);
    await assert.rejects(
      renderPage(doc.doc, page, 2, false),
      (e: { code?: number; message: string }) =>
        e.code === FolioErrorCodes.TooLarge && /too large to render/.test(e.message),
    );
  } finally {
    await doc.close();
  }
});

test('a decompression bomb fails its page against the memory budget, fast and bounded; the next page converts', async (t) => {
  const path = join(dir, 'bomb.pdf');
  // Page 1 inflates to 256 MB; page 2 is ordinary.
  writeFileSync(
    path,
    writeStreamPdf([
      { width: 612, height: 792, stream: bombStream(256, 'Bomb page'), flate: true },
      { width: 612, height: 792, stream: text('Second page survives') },
    ]),
  );
  const {
    value: summary,
    growthMb,
    ms,
  } = await peakRss(() =>
    convertDocument(pool, { uri: path, limits: { pageMemoryMb: 32 } }, { page: () => undefined }),
  );
  t.diagnostic(`bomb, 32 MB budget: ${ms} ms, peak RSS +${growthMb.toFixed(0)} MB`);
  assert.deepEqual(summary.pagesDone, [2]);
  assert.equal(summary.pageErrors.length, 1);
  assert.match(
    summary.pageErrors[0].message,
    /^page 1: decoding this page needs more than its memory budget of 32 MB .*--max-page-memory or the folio\.limits\.pageMemoryMb setting/,
  );
  assert.match(summary.markdown, /Second page survives/);
  // Without the budget this file takes ~0.6 GB and tens of seconds; with it, a fraction.
  assert.ok(growthMb < 200, `peak RSS growth ${growthMb.toFixed(0)} MB`);
  assert.ok(ms < 30_000, `${ms} ms`);
});

test('the document time budget stops the conversion and keeps the pages done', async (t) => {
  const path = join(dir, 'shared.pdf');
  // Six pages drawing one shared stream that inflates to 96 MB: each page decodes it again.
  writeFileSync(
    path,
    writeStreamPdf(
      Array.from({ length: 6 }, () => ({ width: 612, height: 792, stream: Buffer.alloc(0), sharedStream: 0 })),
      [{ stream: bombStream(96, 'Shared'), flate: true }],
    ),
  );
  const logs: string[] = [];
  const t0 = Date.now();
  const summary = await convertDocument(
    pool,
    { uri: path, limits: { documentSeconds: 2, pageMemoryMb: 4096 } },
    { page: () => undefined, log: (_l, m) => logs.push(m) },
  );
  const ms = Date.now() - t0;
  t.diagnostic(`time budget 2 s: returned after ${ms} ms with ${summary.pagesDone.length} of 6 pages`);
  assert.ok(summary.stopped, 'stopped by the budget');
  assert.equal(summary.stopped.limit, 'documentSeconds');
  assert.equal(summary.cancelled, false);
  assert.ok(summary.pagesDone.length < 6);
  const first = summary.pagesDone.length + 1;
  assert.match(
    summary.stopped.message,
    new RegExp(`time budget of 2 s ran out: pages? ${first}(–6)? (was|were) not converted .*--max-document-seconds`),
  );
  assert.match(summary.pageErrors.at(-1)!.message, new RegExp(`^page ${first}: the document's time budget`));
  assert.ok(logs.some((m) => m.includes('time budget')));
  assert.ok(ms < 2000 + 8000, `returned ${ms} ms after start`);
  const settle = Date.now();
  await pool.settled();
  t.diagnostic(`worker stopped ${Date.now() - settle} ms after the budget's answer`);
  assert.ok(Date.now() - settle < 5000, 'the running pdf.js work was stopped too');
});

test('a cancel during a long pdf.js parse stops the worker promptly', async (t) => {
  const path = join(dir, 'slow.pdf');
  writeFileSync(path, writeStreamPdf([{ width: 612, height: 792, stream: bombStream(384, 'Slow page'), flate: true }]));
  const ac = new AbortController();
  const started = Date.now();
  const run = convertDocument(
    pool,
    { uri: path, limits: { pageMemoryMb: 4096 } },
    { page: () => undefined },
    ac.signal,
  );
  // Cancel once the worker is inside the long parse (opening reads page 1's text: the 384 MB
  // stream), seen through the shared phase flag — not after a guessed time. pdf.js is entered
  // briefly for getDocument first; the parse then takes tens of seconds, so the worker is still
  // inside pdf.js 100 ms of its own later (a brief getDocument would have left by then).
  const deadline = Date.now() + 120_000;
  let insideSince: number | undefined;
  while (Date.now() < deadline) {
    if (pool.pdfjsWorkInFlight() === 0) insideSince = undefined;
    else if (insideSince === undefined) insideSince = Date.now();
    else if (Date.now() - insideSince >= 100) break;
    await new Promise((r) => setTimeout(r, 5)); // a poll of the flag, leaving the CPU to the worker
  }
  assert.ok(insideSince !== undefined, 'the worker entered the long parse');
  const cancelAt = Date.now();
  ac.abort();
  const summary = await run;
  const answered = Date.now() - cancelAt;
  await pool.settled();
  const stopped = Date.now() - cancelAt;
  t.diagnostic(`cancel ${cancelAt - started} ms in: answered in ${answered} ms, worker stopped in ${stopped} ms`);
  assert.equal(summary.cancelled, true);
  assert.ok(answered < 1000, `answered ${answered} ms after the cancel`);
  // Grace 250 ms, then the thread is terminated inside pdf.js (the parse alone takes tens of seconds).
  assert.ok(stopped < 3000, `worker stopped ${stopped} ms after the cancel`);
  // The pool goes on with a fresh worker.
  const ok = join(dir, 'ok.pdf');
  writeFileSync(ok, writeStreamPdf([{ width: 612, height: 792, stream: text('After the cancel') }]));
  const next = await convertDocument(pool, { uri: ok }, { page: () => undefined });
  assert.match(next.markdown, /After the cancel/);
});

test('limits are validated: flags, settings and requests name what is wrong', async () => {
  assert.deepEqual(parseConvertArgs(['a.pdf', '--max-page-memory', '64', '--max-document-seconds=0']).limits, {
    pageMemoryMb: 64,
    documentSeconds: 0,
  });
  assert.throws(
    () => parseConvertArgs(['a.pdf', '--max-page-memory', '8']),
    /--max-page-memory must be a whole number from 16 to 65536, not 8/,
  );
  assert.throws(
    () => parseConvertArgs(['a.pdf', '--max-document-seconds', '1.5']),
    /--max-document-seconds must be a whole number from 0 to 604800/,
  );
  assert.throws(
    () => parseConvertArgs(['a.pdf', '--max-document-seconds', 'soon']),
    /--max-document-seconds must be a whole number/,
  );
  assert.throws(
    () => resolveLimits({ pageMemoryMb: '512' }, undefined, 'folio.limits'),
    /folio\.limits\.pageMemoryMb must be a whole number from 16 to 65536, not "512"/,
  );
  assert.throws(() => resolveLimits({ cpuSeconds: 5 }), /limits\.cpuSeconds is not a known limit/);
  assert.deepEqual(resolveLimits(undefined), {
    documentSeconds: 3600,
    pageMemoryMb: 512,
    maxPages: 10000,
    maxCells: 1_000_000,
  });
  const ok = join(dir, 'plain.pdf');
  writeFileSync(ok, writeStreamPdf([{ width: 612, height: 792, stream: text('x') }]));
  await assert.rejects(
    convertDocument(pool, { uri: ok, limits: { pageMemoryMb: -1 } }, { page: () => undefined }),
    (e: { code?: number; message: string }) =>
      e.code === FolioErrorCodes.InvalidParams && /limits\.pageMemoryMb must be a whole number/.test(e.message),
  );
});
