/**
 * A page request past its time limit is stopped without ever tearing its worker thread down
 * inside an onnxruntime run (eval/FINDINGS.md, 2026-11-24: batches of scanned pages under heavy
 * load ended in SIGABRT and every later file of the process failed).
 *
 * The pool is given time limits far shorter than OCR of a page takes and no grace before the
 * forced stop, so each request is stopped while OCR runs — most of that time inside
 * `session.run`. The scenario runs in a child process, because the failure it guards against
 * aborts the whole process: the child must exit normally, every stopped request must fail with
 * its time-limit error, some forced stops must have waited for a run in flight, and the pool must
 * convert the page afterwards on a fresh worker.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { PageWorkerPool } from '../../server/worker/pool';
import { repoRoot } from '../helpers/corpus';

const SAMPLE = join(repoRoot(), 'test', 'fixtures', 'sample.pdf');

async function child(): Promise<void> {
  const waits: number[] = [];
  const opts = { ocr: 'always' as const, renderImages: false, scale: 2, cacheDir: mkdtempSync(join(tmpdir(), 'folio-ocrto-')) };
  // Time the page once without a limit, so the limits below fall inside OCR on any machine.
  const probe = new PageWorkerPool({ size: 1, script: join(repoRoot(), 'dist', 'pageWorker.js') });
  await probe.open({ docId: 'd', path: SAMPLE });
  const t0 = Date.now();
  const first = await probe.analyze('d', 1, opts);
  const pageMs = Date.now() - t0;
  await probe.dispose(5000);
  const errors: string[] = [];
  for (const fraction of [0.3, 0.5, 0.7]) {
    const limited = new PageWorkerPool({
      size: 1,
      script: join(repoRoot(), 'dist', 'pageWorker.js'),
      requestTimeoutMs: Math.max(50, Math.round(pageMs * fraction)),
      forceTerminateMs: 0,
      onForcedTermination: (i) => waits.push(i.waitedForNativeMs),
    });
    // The open is quick next to OCR; a generous first request opens the document.
    await limited.open({ docId: 'd', path: SAMPLE }).catch(() => undefined);
    try {
      await limited.analyze('d', 1, opts);
      errors.push('finished');
    } catch (e) {
      errors.push((e as Error).message);
    }
    await new Promise((r) => setTimeout(r, 200));
    await limited.settled();
    // The same pool goes on with a fresh worker once the stopped one is gone.
    const again = await limited.analyze('d', 1, { ...opts, ocr: 'never' as const });
    if (again.items.length === 0) throw new Error('no items after the forced stop');
    await limited.dispose(5000);
  }
  process.stdout.write(JSON.stringify({ pageMs, items: first.items.length, errors, waits }) + '\n');
}

if (process.env.FOLIO_OCR_TIMEOUT_CHILD === '1') {
  void child().then(
    () => process.exit(0),
    (e) => {
      console.error(e);
      process.exit(3);
    },
  );
} else {
  test('a request over its time limit during OCR stops without aborting the process; the pool goes on', { timeout: 600_000 }, () => {
    const r = spawnSync(process.execPath, [__filename], { env: { ...process.env, FOLIO_OCR_TIMEOUT_CHILD: '1' }, encoding: 'utf8', timeout: 540_000 });
    assert.equal(r.signal, null, `the child was killed by ${r.signal} (stderr: ${r.stderr.slice(-2000)})`);
    assert.equal(r.status, 0, `child exit ${r.status}: ${r.stderr.slice(-2000)}`);
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as { pageMs: number; items: number; errors: string[]; waits: number[] };
    assert.ok(out.items > 0, 'the page has text when OCR finishes');
    const stopped = out.errors.filter((e) => /timed out/.test(e));
    assert.ok(stopped.length >= 2, `the limited requests were stopped by their limit: ${out.errors.join('; ')}`);
    // A request may finish on its own just after its limit; every other one has its worker terminated.
    assert.ok(out.waits.length >= 1 && out.waits.length <= stopped.length, `forced stops ${out.waits.length} for ${stopped.length} stopped requests`);
    assert.ok(out.waits.some((w) => w > 0), `some forced stops waited for an onnxruntime run in flight (${out.waits.join(', ')} ms; page ${out.pageMs} ms)`);
  });
}
