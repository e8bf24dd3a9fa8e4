/**
 * A page worker started before the CLI's own bundle is loaded (issue 22, start-up).
 *
 * A worker thread takes ~30 ms to boot and then loads pdf.js (~70 ms), while `folio convert`'s
 * thread first loads dist/cli-main.js and reads its arguments (~20 ms) before its pool asks for a
 * worker. dist/cli.js (server/cli/launch.ts, this module and nothing else) therefore starts one
 * worker at once, with the pool's defaults, and the pool adopts it for its first slot: the two
 * threads boot side by side. A worker the pool cannot use (another script or heap limit, or the
 * command needs none) is terminated; it holds no work and is unref'd, so it never keeps the
 * process alive.
 *
 * The hand-over goes through a global symbol because launcher and pool are in different bundles.
 */
import { Worker } from 'node:worker_threads';
import type { WorkerInit } from './messages';
import { createCancelBuffer } from './cancelFlag';

/** The pool's heap limit per worker (MB) unless told otherwise (PoolOptions.maxHeapMb). */
export const DEFAULT_WORKER_HEAP_MB = 3072;

/**
 * The page worker's thread stack. Node gives a Worker 4 MB; onnxruntime's graph code recurses on
 * the calling thread when PaddleOCR's sessions are created there, and in a long batch (the
 * 206-document snapshot, `folio convert` with `--jobs 1` or 2) that overflowed it: a segfault in
 * libonnxruntime that ended the whole CLI with every later document unconverted.
 */
export const WORKER_STACK_MB = 16;

/** The resource limits every page worker starts with (the pool's and the launcher's alike). */
export function pageWorkerLimits(maxHeapMb: number): { maxOldGenerationSizeMb: number; stackSizeMb: number } {
  return { maxOldGenerationSizeMb: maxHeapMb, stackSizeMb: WORKER_STACK_MB };
}

export interface PrestartedWorker {
  worker: Worker;
  cancel: Int32Array;
  script: string;
  maxHeapMb: number;
  /** Set when the thread ended before it was adopted (it could not load, say). */
  exited: boolean;
}

const KEY = Symbol.for('folio.prestartedPageWorker');
const slot = globalThis as unknown as Record<symbol, PrestartedWorker | undefined>;

/**
 * Starts a page worker and sends it the init message with its cancel flag, as PoolWorker would.
 */
export function prestartPageWorker(script: string, maxHeapMb: number = DEFAULT_WORKER_HEAP_MB): void {
  if (slot[KEY]) return;
  const cancel = createCancelBuffer();
  const worker = new Worker(script, { resourceLimits: pageWorkerLimits(maxHeapMb) });
  worker.postMessage({ kind: 'init', cancel } satisfies WorkerInit);
  worker.unref();
  const entry: PrestartedWorker = { worker, cancel, script, maxHeapMb, exited: false };
  // Until adopted nobody else listens: an error must not become an uncaught exception.
  const onError = () => undefined;
  worker.on('error', onError);
  worker.once('exit', () => (entry.exited = true));
  slot[KEY] = entry;
}

/**
 * The prestarted worker if it runs `script` with `maxHeapMb` and is still alive; else undefined
 * (and a mismatched one is terminated). Taken once.
 */
export function takePrestartedWorker(script: string, maxHeapMb: number): PrestartedWorker | undefined {
  const entry = slot[KEY];
  if (!entry) return undefined;
  slot[KEY] = undefined;
  entry.worker.removeAllListeners('error');
  if (!entry.exited && entry.script === script && entry.maxHeapMb === maxHeapMb) return entry;
  void entry.worker.terminate();
  return undefined;
}
