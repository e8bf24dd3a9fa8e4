/**
 * A page worker is never torn down inside an onnxruntime run (eval/FINDINGS.md, 2026-11-24:
 * batches of scanned pages under heavy load ended in SIGABRT — "terminate called after throwing
 * an instance of 'Napi::Error'" — and every later file of the process failed).
 *
 * The scenario runs in a child process, because the failure it guards against aborts the whole
 * process:
 * - stop inside a run, deterministically: OCR a page, watch the runs in flight through the
 *   shared flag (`nativeRunsInFlight`), and dispose of the pool with no drain at the moment a run
 *   is in flight — once in detection (the first run) and once in a later recognition batch. The
 *   child must live, and the dispose must have waited for the run;
 * - a request past its time limit (no grace before the forced stop), timed just after the first
 *   run starts: it fails with its time-limit error and the same pool converts the page again on
 *   a fresh worker.
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
const SCRIPT = () => join(repoRoot(), 'dist', 'pageWorker.js');
// Polls the shared flag between checks (a state read, not a wait for a guessed time).
const nextPoll = () => new Promise((r) => setTimeout(r, 1));

interface DisposeRun {
  /** Runs in flight when dispose was called. */
  runsAtDispose: number;
  /** How long dispose took. */
  disposeMs: number;
  /** When (ms after the request) the first run started. */
  firstRunMs: number;
}

/** OCRs page 1 and disposes of the pool while the `nth` run (1-based) is in flight. */
async function disposeDuringRun(nth: number, opts: object): Promise<DisposeRun> {
  const pool = new PageWorkerPool({ size: 1, script: SCRIPT() });
  await pool.open({ docId: 'd', path: SAMPLE });
  const t0 = Date.now();
  const work = pool.analyze('d', 1, opts as never).then(
    () => 'finished',
    (e: Error) => e.message,
  );
  let seen = 0;
  let inRun = false;
  let firstRunMs = -1;
  for (;;) {
    const runs = pool.nativeRunsInFlight();
    if (runs > 0 && !inRun) {
      seen++;
      if (firstRunMs < 0) firstRunMs = Date.now() - t0;
    }
    inRun = runs > 0;
    if (inRun && seen >= nth) break;
    if (Date.now() - t0 > 300_000) throw new Error(`run ${nth} never started (${seen} seen)`);
    await nextPoll();
  }
  const runsAtDispose = pool.nativeRunsInFlight();
  const d0 = Date.now();
  await pool.dispose(0);
  const disposeMs = Date.now() - d0;
  await work;
  return { runsAtDispose, disposeMs, firstRunMs };
}

async function child(): Promise<void> {
  const opts = {
    ocr: 'always' as const,
    renderImages: false,
    scale: 2,
    cacheDir: mkdtempSync(join(tmpdir(), 'folio-ocrto-')),
  };
  const disposals = [await disposeDuringRun(1, opts), await disposeDuringRun(4, opts)];
  const forced: number[] = [];
  const limited = new PageWorkerPool({
    size: 1,
    script: SCRIPT(),
    requestTimeoutMs: disposals[0]!.firstRunMs + 30,
    forceTerminateMs: 0,
    onForcedTermination: (i) => forced.push(i.waitedForNativeMs),
  });
  await limited.open({ docId: 'd', path: SAMPLE }).catch(() => undefined);
  const stopped = await limited.analyze('d', 1, opts).then(
    () => 'finished',
    (e: Error) => e.message,
  );
  // The stopped request's worker is terminated once its run returns: settled() resolves on that.
  await limited.settled();
  const again = await limited.analyze('d', 1, { ...opts, ocr: 'never' as const });
  await limited.dispose(5000);
  process.stdout.write(JSON.stringify({ disposals, stopped, forced, itemsAfter: again.items.length }) + '\n');
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
  test(
    'a worker is never torn down inside an onnxruntime run: the process lives, the pool goes on',
    { timeout: 600_000 },
    () => {
      const r = spawnSync(process.execPath, [__filename], {
        env: { ...process.env, FOLIO_OCR_TIMEOUT_CHILD: '1' },
        encoding: 'utf8',
        timeout: 540_000,
      });
      assert.equal(r.signal, null, `the child was killed by ${r.signal} (stderr: ${r.stderr.slice(-2000)})`);
      assert.equal(r.status, 0, `child exit ${r.status}: ${r.stderr.slice(-2000)}`);
      const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as {
        disposals: DisposeRun[];
        stopped: string;
        forced: number[];
        itemsAfter: number;
      };
      for (const d of out.disposals)
        assert.ok(d.runsAtDispose > 0, `dispose was called during a run (${JSON.stringify(out.disposals)})`);
      assert.match(out.stopped, /timed out/, 'the request past its limit failed with its time-limit error');
      assert.ok(out.forced.length <= 1, `at most one forced stop (${out.forced.join(', ')})`);
      assert.ok(out.itemsAfter > 0, 'the pool converts the page again on a fresh worker');
    },
  );
}
