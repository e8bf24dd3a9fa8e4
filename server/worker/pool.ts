/**
 * A pool of page workers (worker threads running dist/pageWorker.js).
 *
 * Why a pool and not a worker per conversion: importing pdf.js and loading the OCR models costs
 * ~2 s per thread, so workers are kept and reused across documents. Each worker remembers which
 * documents it has open and re-opens them lazily after a restart.
 *
 * Cancellation: an aborted request waits a short grace period for its answer, then the worker is
 * terminated (a pdf.js parse or an OCR run cannot be interrupted from outside) and replaced on
 * next use. A worker that crashes or runs out of memory fails only the request it was running.
 */
import { Worker } from 'node:worker_threads';
import { join } from 'node:path';
import { deserializeError } from '../errors';
import type { WorkerRequest, WorkerResponse } from './messages';

/** Distributes `Omit<T, 'id'>` over a union, so each request kind keeps its own fields. */
type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;

export class CancelledError extends Error {
  constructor() {
    super('cancelled');
    this.name = 'CancelledError';
  }
}

export interface DocumentRef {
  docId: string;
  path: string;
  password?: string;
}

export interface PoolOptions {
  /** Number of worker threads (default 2: this is the size of the machines we target). */
  size?: number;
  /** Path of the bundled worker script (default: pageWorker.js beside this bundle). */
  script?: string;
  /** How long an aborted request may take to answer before its worker is terminated. */
  cancelGraceMs?: number;
  /** Per-request time limit; a request over it fails and its worker is replaced. */
  requestTimeoutMs?: number;
  /** Heap limit of each worker (MB): a page that needs more fails alone. */
  maxHeapMb?: number;
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

  constructor(script: string, maxHeapMb: number) {
    this.worker = new Worker(script, { resourceLimits: { maxOldGenerationSizeMb: maxHeapMb } });
    this.worker.on('message', (res: WorkerResponse) => {
      const p = this.pending.get(res.id);
      if (!p) return;
      this.pending.delete(res.id);
      if (res.kind === 'error') p.reject(deserializeError(res.error));
      else p.resolve(res);
    });
    const fail = (err: Error) => {
      this.dead = true;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    this.worker.on('error', (err) => fail(new Error(`page worker failed: ${err.message}`)));
    this.worker.on('exit', (code) => fail(new Error(`page worker stopped (exit code ${code})`)));
    // Idle workers must not keep the CLI process alive.
    this.worker.unref();
  }

  request(req: WithoutId<WorkerRequest>, signal: AbortSignal | undefined, graceMs: number, timeoutMs: number): Promise<WorkerResponse> {
    if (this.dead) return Promise.reject(new Error('page worker is not running'));
    if (signal?.aborted) return Promise.reject(new CancelledError());
    const id = this.nextId++;
    return new Promise<WorkerResponse>((resolve, reject) => {
      let killTimer: NodeJS.Timeout | undefined;
      const timeout = setTimeout(() => {
        settle();
        reject(new Error(`timed out after ${Math.round(timeoutMs / 1000)} s`));
        void this.terminate();
      }, timeoutMs);
      const onAbort = () => {
        // Give the worker a moment to finish on its own; then stop it.
        killTimer = setTimeout(() => {
          settle();
          reject(new CancelledError());
          void this.terminate();
        }, graceMs);
      };
      const settle = () => {
        clearTimeout(timeout);
        if (killTimer) clearTimeout(killTimer);
        signal?.removeEventListener('abort', onAbort);
        this.pending.delete(id);
      };
      this.pending.set(id, {
        resolve: (r) => {
          settle();
          if (signal?.aborted) reject(new CancelledError());
          else resolve(r);
        },
        reject: (e) => {
          settle();
          reject(signal?.aborted ? new CancelledError() : e);
        },
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      this.worker.ref();
      this.worker.postMessage({ ...req, id } as WorkerRequest);
    }).finally(() => {
      if (this.pending.size === 0 && !this.dead) this.worker.unref();
    });
  }

  async terminate(): Promise<void> {
    this.dead = true;
    await this.worker.terminate().catch(() => undefined);
  }
}

export class PageWorkerPool {
  readonly size: number;
  private readonly script: string;
  private readonly graceMs: number;
  private readonly timeoutMs: number;
  private readonly maxHeapMb: number;
  private readonly slots: (PoolWorker | undefined)[];
  private readonly busy: boolean[];
  private readonly waiters: ((index: number) => void)[] = [];
  private readonly docs = new Map<string, DocumentRef>();
  private disposed = false;

  constructor(opts: PoolOptions = {}) {
    this.size = Math.max(1, opts.size ?? 2);
    this.script = opts.script ?? join(__dirname, 'pageWorker.js');
    this.graceMs = opts.cancelGraceMs ?? 250;
    this.timeoutMs = opts.requestTimeoutMs ?? 120_000;
    this.maxHeapMb = opts.maxHeapMb ?? 3072;
    this.slots = new Array(this.size).fill(undefined);
    this.busy = new Array(this.size).fill(false);
  }

  /** Opens a document on one worker and returns its page count (throws the document's error). */
  async open(doc: DocumentRef, signal?: AbortSignal): Promise<number> {
    this.docs.set(doc.docId, doc);
    const res = await this.withWorker(signal, (w) => this.ensureOpen(w, doc, signal));
    return res;
  }

  async analyze(docId: string, page: number, options: import('../pipeline/types').AnalyzeOptions, signal?: AbortSignal) {
    const doc = this.doc(docId);
    return this.withWorker(signal, async (w) => {
      await this.ensureOpen(w, doc, signal);
      const res = await w.request({ kind: 'analyze', docId, page, options }, signal, this.graceMs, this.timeoutMs);
      if (res.kind !== 'analyzed') throw new Error(`unexpected worker answer ${res.kind}`);
      return res.analysis;
    });
  }

  async reparse(
    docId: string,
    page: number,
    bbox: import('../protocol').BBox,
    cls: import('../protocol').RegionClass,
    options: import('../pipeline/types').AnalyzeOptions,
    signal?: AbortSignal,
  ) {
    const doc = this.doc(docId);
    return this.withWorker(signal, async (w) => {
      await this.ensureOpen(w, doc, signal);
      const res = await w.request({ kind: 'reparse', docId, page, bbox, cls, options }, signal, this.graceMs, this.timeoutMs);
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
        await w.request({ kind: 'close', docId }, undefined, this.graceMs, 10_000).catch(() => undefined);
      }),
    );
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    await Promise.all(this.slots.map((w) => w?.terminate()));
  }

  private doc(docId: string): DocumentRef {
    const d = this.docs.get(docId);
    if (!d) throw new Error(`document ${docId} was not opened`);
    return d;
  }

  private async ensureOpen(w: PoolWorker, doc: DocumentRef, signal?: AbortSignal): Promise<number> {
    const res = await w.request(
      { kind: 'open', docId: doc.docId, path: doc.path, password: doc.password },
      signal,
      this.graceMs,
      this.timeoutMs,
    );
    if (res.kind !== 'opened') throw new Error(`unexpected worker answer ${res.kind}`);
    w.openDocs.add(doc.docId);
    return res.numPages;
  }

  private async withWorker<T>(signal: AbortSignal | undefined, fn: (w: PoolWorker) => Promise<T>): Promise<T> {
    const index = await this.acquire(signal);
    try {
      let w = this.slots[index];
      if (!w || w.dead) {
        w = new PoolWorker(this.script, this.maxHeapMb);
        this.slots[index] = w;
      }
      return await fn(w);
    } finally {
      this.release(index);
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
