/**
 * A pool of page workers (worker threads running dist/pageWorker.js).
 *
 * Why a pool and not a worker per conversion: importing pdf.js and loading the OCR models costs
 * ~2 s per thread, so workers are kept and reused across documents. Each worker remembers which
 * documents it has open and re-opens them lazily after a restart.
 *
 * Cancellation: an aborted request is answered at once; its worker is told through a shared flag
 * (cancelFlag.ts) and stops at the engine's next check, and its slot is reused once it has.
 * pdf.js checks no flag of ours (a bomb stream is decoded in one long run), so a worker still
 * inside pdf.js after a short grace is terminated — only there, never while onnxruntime runs
 * (the phase is claimed atomically, see cancelFlag.ts). A request over its time limit is stopped
 * the same way, or terminated after a further grace when it is stuck elsewhere. A worker that
 * crashes or runs out of memory fails only the request it was running, and is replaced on next use.
 */
import { Worker } from 'node:worker_threads';
import { join } from 'node:path';
import { CancelledError, deserializeError, FolioError } from '../errors';
import { FolioErrorCodes } from '../../common/protocol';
import type { WorkerInit, WorkerRequest, WorkerResponse } from './messages';
import type { AnalyzeOptions } from '../model/analysis';
import {
  claimForcedTermination,
  claimTermination,
  createCancelBuffer,
  inPdfjs,
  nativeRuns,
  requestCancel,
} from './cancelFlag';
import { DEFAULT_LIMITS, MiB } from './limits';
import { startupMark } from '../util/startupTrace';
import { DEFAULT_WORKER_HEAP_MB, pageWorkerLimits, takePrestartedWorker } from './prestart';

/** Distributes `Omit<T, 'id'>` over a union, so each request kind keeps its own fields. */
type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;

export interface DocumentRef {
  docId: string;
  path: string;
  password?: string;
  /** Memory budget (MB) of each request on this document inside pdf.js; default the pool's. */
  pageMemoryMb?: number;
}

export interface PoolOptions {
  /** Number of worker threads (default 2: this is the size of the machines we target). */
  size?: number;
  /** Path of the bundled worker script (default: pageWorker.js beside this bundle). */
  script?: string;
  /** Per-request time limit; a request over it fails and its worker is replaced. */
  requestTimeoutMs?: number;
  /** Heap limit of each worker (MB): a page that needs more fails alone. */
  maxHeapMb?: number;
  /** Default memory budget (MB) of a request inside pdf.js (server/worker/pdfBudget.ts). */
  pageMemoryMb?: number;
  /** How long a cancelled request may stay inside pdf.js before its worker is terminated. */
  cancelGraceMs?: number;
  /**
   * How long a request past its time limit may go on before its worker is terminated wherever it
   * is (default 10 s) — except inside an onnxruntime run, which is always waited for.
   */
  forceTerminateMs?: number;
  /** Told when a worker was terminated for a request past its time limit (for logs and tests). */
  onForcedTermination?: (info: { waitedForNativeMs: number }) => void;
}

interface Pending {
  resolve: (r: WorkerResponse) => void;
  reject: (e: Error) => void;
}

class PoolWorker {
  readonly worker: Worker;
  readonly pending = new Map<number, Pending>();
  readonly openDocs = new Set<string>();
  dead = false;
  private nextId = 1;
  private readonly cancel: Int32Array;
  /** Requests whose caller was answered (cancelled) but whose worker has not finished yet. */
  private readonly abandoned = new Set<number>();
  private idleWaiters: (() => void)[] = [];

  constructor(
    script: string,
    maxHeapMb: number,
    private readonly graceMs: number,
    private readonly forceMs: number,
    private readonly onForced?: PoolOptions['onForcedTermination'],
  ) {
    // The CLI's launcher may have started this thread already (prestart.ts): then it has its init.
    const prestarted = takePrestartedWorker(script, maxHeapMb);
    if (prestarted) {
      this.worker = prestarted.worker;
      this.cancel = prestarted.cancel;
    } else {
      startupMark('pool:spawn');
      this.cancel = createCancelBuffer();
      this.worker = new Worker(script, { resourceLimits: pageWorkerLimits(maxHeapMb) });
      this.worker.postMessage({ kind: 'init', cancel: this.cancel } satisfies WorkerInit);
    }
    this.worker.on('message', (res: WorkerResponse) => {
      if (this.abandoned.delete(res.id)) {
        this.checkIdle();
        return;
      }
      const p = this.pending.get(res.id);
      if (!p) return;
      this.pending.delete(res.id);
      if (res.kind === 'error') p.reject(deserializeError(res.error));
      else p.resolve(res);
      this.checkIdle();
    });
    const fail = (err: Error) => {
      this.dead = true;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
      this.abandoned.clear();
      this.checkIdle();
    };
    // A heap past its limit is the page's memory, not a bug: its own kind (docs/errors.md).
    this.worker.on('error', (err) =>
      fail(
        new FolioError(
          (err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? FolioErrorCodes.OutOfMemory
            : FolioErrorCodes.InternalError,
          `page worker failed: ${err.message}`,
        ),
      ),
    );
    this.worker.on('exit', (code) =>
      fail(new FolioError(FolioErrorCodes.InternalError, `page worker stopped (exit code ${code})`)),
    );
    // Idle workers must not keep the CLI process alive.
    this.worker.unref();
  }

  /** Resolves when the worker has no request running, answered or abandoned. */
  idle(): Promise<void> {
    if (this.pending.size === 0 && this.abandoned.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private checkIdle(): void {
    if (this.pending.size > 0 || this.abandoned.size > 0) return;
    if (!this.dead) this.worker.unref();
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  /**
   * Sends a request. When `signal` aborts, the caller is answered at once with CancelledError and
   * the worker is asked (through the shared flag) to stop early; the worker stays busy until it
   * answers, so it is never torn down while native code runs in it. Only a request over its time
   * limit terminates the worker (a pure-JS hang in pdf.js).
   */
  request(req: WithoutId<WorkerRequest>, signal: AbortSignal | undefined, timeoutMs: number): Promise<WorkerResponse> {
    if (this.dead) return Promise.reject(new Error('page worker is not running'));
    if (signal?.aborted) return Promise.reject(new CancelledError());
    const id = this.nextId++;
    return new Promise<WorkerResponse>((resolve, reject) => {
      const timeout = setTimeout(() => {
        settle();
        reject(new FolioError(FolioErrorCodes.Timeout, `timed out after ${Math.round(timeoutMs / 1000)} s`));
        // Stuck outside pdf.js (a loop of ours, or native code ignoring the flag): terminate anyway.
        this.stop(id, 0, this.forceMs);
      }, timeoutMs);
      const onAbort = () => {
        settle();
        reject(new CancelledError());
        this.stop(id, this.graceMs);
      };
      const settle = () => {
        clearTimeout(timeout);
        signal?.removeEventListener('abort', onAbort);
        this.pending.delete(id);
      };
      this.pending.set(id, {
        resolve: (r) => {
          settle();
          resolve(r);
        },
        reject: (e) => {
          settle();
          reject(e);
        },
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      this.worker.ref();
      this.worker.postMessage({ ...req, id } as WorkerRequest);
    });
  }

  /**
   * Stops request `id`, already answered: the shared flag first (OCR polls it); if the worker is
   * still on it after `graceMs` and inside pdf.js, the thread is terminated; `forceAfterMs`
   * terminates it whatever it runs (only for a request past its time limit).
   */
  private stop(id: number, graceMs: number, forceAfterMs?: number): void {
    this.abandoned.add(id);
    requestCancel(this.cancel, id);
    const stillRunning = () => this.abandoned.has(id) && !this.dead;
    const tryTerminate = () => {
      if (stillRunning() && claimTermination(this.cancel)) void this.terminate();
    };
    if (graceMs <= 0) tryTerminate();
    else setTimeout(tryTerminate, graceMs).unref();
    // Still inside pdf.js after the grace is a long run of JavaScript: keep watching for it.
    const watch = setInterval(
      () => {
        if (!stillRunning()) clearInterval(watch);
        else tryTerminate();
      },
      Math.max(50, graceMs),
    );
    watch.unref();
    if (forceAfterMs !== undefined) {
      setTimeout(() => {
        if (!stillRunning()) return;
        void this.terminateOutsideNative(stillRunning).then(
          (waited) => waited !== undefined && this.onForced?.({ waitedForNativeMs: waited }),
        );
      }, forceAfterMs).unref();
    }
  }

  /**
   * Terminates the thread wherever it is, except inside an onnxruntime run: tearing a thread down
   * there aborts the whole process (SIGABRT), so the claim is retried until the run has
   * returned. Resolves with how long it waited for runs (ms), or undefined when `still` turned
   * false first (the work ended on its own).
   */
  terminateOutsideNative(still: () => boolean = () => !this.dead): Promise<number | undefined> {
    const since = Date.now();
    return new Promise((resolve) => {
      let waited = false;
      const force = () => {
        if (!still()) {
          resolve(undefined);
          return true;
        }
        if (!claimForcedTermination(this.cancel)) {
          waited = true;
          return false;
        }
        void this.terminate().then(() => resolve(waited ? Date.now() - since : 0));
        return true;
      };
      if (force()) return;
      const retry = setInterval(() => force() && clearInterval(retry), 20);
    });
  }

  /** onnxruntime runs in flight on this worker's thread (read from the shared flag). */
  nativeRuns(): number {
    return this.dead ? 0 : nativeRuns(this.cancel);
  }

  /** Whether this worker's thread is inside pdf.js now (read from the shared flag). */
  inPdfjs(): boolean {
    return !this.dead && inPdfjs(this.cancel);
  }

  async terminate(): Promise<void> {
    this.dead = true;
    await this.worker.terminate().catch(() => undefined);
  }
}

export class PageWorkerPool {
  readonly size: number;
  private readonly script: string;
  private readonly timeoutMs: number;
  private readonly maxHeapMb: number;
  private readonly pageMemoryMb: number;
  private readonly graceMs: number;
  private readonly forceMs: number;
  private readonly onForced?: PoolOptions['onForcedTermination'];
  private readonly slots: (PoolWorker | undefined)[];
  private readonly busy: boolean[];
  private readonly waiters: ((index: number) => void)[] = [];
  private readonly docs = new Map<string, DocumentRef>();
  private disposed = false;

  constructor(opts: PoolOptions = {}) {
    this.size = Math.max(1, opts.size ?? 2);
    this.script = opts.script ?? join(__dirname, 'pageWorker.js');
    this.timeoutMs = opts.requestTimeoutMs ?? 120_000;
    this.maxHeapMb = opts.maxHeapMb ?? DEFAULT_WORKER_HEAP_MB;
    this.pageMemoryMb = opts.pageMemoryMb ?? DEFAULT_LIMITS.pageMemoryMb;
    this.graceMs = opts.cancelGraceMs ?? 250;
    this.forceMs = opts.forceTerminateMs ?? 10_000;
    this.onForced = opts.onForcedTermination;
    this.slots = new Array(this.size).fill(undefined);
    this.busy = new Array(this.size).fill(false);
  }

  /** Opens a document on one worker and returns its page count (throws the document's error). */
  async open(doc: DocumentRef, signal?: AbortSignal): Promise<number> {
    this.docs.set(doc.docId, doc);
    const res = await this.withWorker(signal, (w) => this.ensureOpen(w, doc, signal));
    return res;
  }

  async analyze(docId: string, page: number, options: AnalyzeOptions, signal?: AbortSignal) {
    const doc = this.doc(docId);
    return this.withWorker(signal, async (w) => {
      await this.ensureOpen(w, doc, signal);
      const res = await w.request(
        { kind: 'analyze', docId, page, options, budget: this.budget(doc) },
        signal,
        this.timeoutMs,
      );
      if (res.kind !== 'analyzed') throw new Error(`unexpected worker answer ${res.kind}`);
      return res.analysis;
    });
  }

  async reparse(
    docId: string,
    page: number,
    bbox: import('../../common/protocol').BBox,
    cls: import('../../common/protocol').RegionClass,
    options: AnalyzeOptions,
    signal?: AbortSignal,
  ) {
    const doc = this.doc(docId);
    return this.withWorker(signal, async (w) => {
      await this.ensureOpen(w, doc, signal);
      const res = await w.request(
        { kind: 'reparse', docId, page, bbox, cls, options, budget: this.budget(doc) },
        signal,
        this.timeoutMs,
      );
      if (res.kind !== 'reparsed') throw new Error(`unexpected worker answer ${res.kind}`);
      return res.item;
    });
  }

  /** Closes a document on every worker that has it open. */
  async close(docId: string): Promise<void> {
    this.docs.delete(docId);
    await Promise.all(
      this.slots.map(async (w) => {
        if (!w || w.dead || !w.openDocs.has(docId)) return;
        w.openDocs.delete(docId);
        await w.request({ kind: 'close', docId }, undefined, 10_000).catch(() => undefined);
      }),
    );
  }

  /**
   * Stops the workers. Running work gets `drainMs` to finish; then its worker is terminated as
   * soon as no onnxruntime run is in flight in it (never inside one: that aborts the process).
   */
  async dispose(drainMs = 10_000): Promise<void> {
    this.disposed = true;
    await Promise.all(
      this.slots.map(async (w) => {
        if (!w) return;
        await Promise.race([w.idle(), new Promise((r) => setTimeout(r, drainMs).unref())]);
        // Work still running after the drain is stopped, but never inside an onnxruntime run.
        await w.terminateOutsideNative();
      }),
    );
  }

  /** onnxruntime runs in flight over all workers, read without waiting (diagnostics and tests). */
  nativeRunsInFlight(): number {
    return this.slots.reduce((n, w) => n + (w?.nativeRuns() ?? 0), 0);
  }

  /** Workers inside pdf.js now, read without waiting (tests wait for a parse to be under way with it). */
  pdfjsWorkInFlight(): number {
    return this.slots.reduce((n, w) => n + (w?.inPdfjs() ? 1 : 0), 0);
  }

  /** Resolves when no worker runs anything, answered or abandoned (tests measure cancellation with it). */
  async settled(): Promise<void> {
    await Promise.all(this.slots.map((w) => w?.idle()));
  }

  private budget(doc: DocumentRef) {
    return { memoryBytes: (doc.pageMemoryMb ?? this.pageMemoryMb) * MiB };
  }

  private doc(docId: string): DocumentRef {
    const d = this.docs.get(docId);
    if (!d) throw new Error(`document ${docId} was not opened`);
    return d;
  }

  private async ensureOpen(w: PoolWorker, doc: DocumentRef, signal?: AbortSignal): Promise<number> {
    const res = await w.request(
      { kind: 'open', docId: doc.docId, path: doc.path, password: doc.password, budget: this.budget(doc) },
      signal,
      this.timeoutMs,
    );
    if (res.kind !== 'opened') throw new Error(`unexpected worker answer ${res.kind}`);
    w.openDocs.add(doc.docId);
    return res.numPages;
  }

  private async withWorker<T>(signal: AbortSignal | undefined, fn: (w: PoolWorker) => Promise<T>): Promise<T> {
    const index = await this.acquire(signal);
    let w = this.slots[index];
    if (!w || w.dead) {
      w = new PoolWorker(this.script, this.maxHeapMb, this.graceMs, this.forceMs, this.onForced);
      this.slots[index] = w;
    }
    try {
      return await fn(w);
    } finally {
      // A cancelled request answered its caller at once; the slot frees when the worker is done.
      void w.idle().then(() => this.release(index));
    }
  }

  private acquire(signal?: AbortSignal): Promise<number> {
    if (this.disposed) return Promise.reject(new Error('the page worker pool was disposed'));
    if (signal?.aborted) return Promise.reject(new CancelledError());
    const free = this.busy.indexOf(false);
    if (free >= 0) {
      this.busy[free] = true;
      return Promise.resolve(free);
    }
    return new Promise<number>((resolve, reject) => {
      const waiter = (index: number) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(index);
      };
      const onAbort = () => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(new CancelledError());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  private release(index: number): void {
    const next = this.waiters.shift();
    if (next) next(index);
    else this.busy[index] = false;
  }
}
