/**
 * Preprocessing ahead of the decoder (issue 38): while page N decodes on the VLM worker, a
 * preprocessing thread (dist/preprocessWorker.js) computes page N+1's tiles, so the page starts
 * with its pixel values ready. The VLM worker calls `prefetch` when the orchestrator says which
 * page comes next; `preprocessImage` (preprocess.ts) asks `take` first and computes on its own
 * thread only when nothing was started for that request, or it failed.
 *
 * Only page images given by file are prefetched; a request matches a prefetched one by path,
 * file size and modification time, and preprocessing settings (a crop never matches). At most
 * `keep` results are held (each is [tiles, 3, 512, 512] float32: ~53 MB for 17 tiles); older ones
 * are dropped. A thread that fails to start or crashes turns the look-ahead off, quietly: the
 * pages are then preprocessed where they decode, as before.
 *
 * Buffers go round: the tiles come with their buffer transferred (the thread keeps no view of it);
 * once the vision encoder has read them, `releaseTiles` sends the buffer back, transferred again
 * (this thread's views are detached), into the thread's pool (tilePool.ts) for a later page; a
 * dropped result's buffer goes back the same way. So a document's pages reuse two or three
 * buffers instead of touching ~53 MB of fresh memory each.
 */
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { VlmConfig } from './config';
import { releaseTiles, type ImageInput, type PreprocessedImage, type PreprocessSource } from './preprocess';
import { sendBackTo, threadTilePool } from './tilePool';

/** A job for the preprocessing thread. */
export interface PreprocessJob {
  type: 'job';
  id: number;
  path: string;
  pre: VlmConfig['preprocess'];
}

/** A tile buffer given back (transferred) for the thread's pool. */
export interface PreprocessRecycle {
  type: 'recycle';
  buffer: ArrayBuffer;
}

export type ToPreprocessThread = PreprocessJob | PreprocessRecycle;

/**
 * Its answer: the tiles (their buffer transferred, not copied; `recycled` when it is a buffer
 * given back earlier), or why there are none.
 */
export type PreprocessReply =
  | { id: number; ok: true; result: PreprocessedImage; ms: number; recycled: boolean }
  | { id: number; ok: false; message: string };

/** dist/preprocessWorker.js beside this bundle, or in the nearest dist/ above it. */
export function findPreprocessWorker(): string | undefined {
  const candidates = [join(__dirname, 'preprocessWorker.js')];
  for (let dir = __dirname; ;) {
    candidates.push(join(dir, 'dist', 'preprocessWorker.js'));
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return candidates.find((c) => existsSync(c));
}

function keyOf(image: ImageInput, pre: VlmConfig['preprocess']): string | undefined {
  if (!('path' in image)) return undefined;
  try {
    const st = statSync(image.path);
    return JSON.stringify([image.path, st.size, st.mtimeMs, pre]);
  } catch {
    return undefined;
  }
}

export class PreprocessAhead implements PreprocessSource {
  private worker: Worker | undefined;
  private off = false;
  private nextId = 1;
  /** Started results by request key, oldest first. */
  private readonly started = new Map<string, Promise<PreprocessedImage | undefined>>();
  private readonly waiting = new Map<
    number,
    (r: PreprocessedImage | undefined, done?: { ms: number; recycled: boolean }) => void
  >();
  /** What each started request took on the thread, by its result (for the log line). */
  private readonly threadMs = new WeakMap<Promise<PreprocessedImage | undefined>, { ms: number; recycled: boolean }>();

  constructor(
    private readonly workerPath: string | undefined = findPreprocessWorker(),
    private readonly keep = 2,
    private readonly log?: (message: string) => void,
  ) {}

  /** Starts preprocessing `image` on the preprocessing thread, unless it is already started. */
  prefetch(image: ImageInput, pre: VlmConfig['preprocess']): void {
    const key = keyOf(image, pre);
    if (!key || this.started.has(key) || !('path' in image)) return;
    const worker = this.thread();
    if (!worker) return;
    const id = this.nextId++;
    const result = new Promise<PreprocessedImage | undefined>((resolve) =>
      this.waiting.set(id, (r, done) => {
        // Also when `take` already has the promise (the page started before its tiles were ready).
        if (r && done) this.threadMs.set(result, done);
        resolve(r);
      }),
    );
    this.started.set(key, result);
    // The oldest result nobody took is dropped (a page the orchestrator skipped or cancelled);
    // its buffer goes back to the thread's pool once it arrives.
    for (const [k, dropped] of this.started) {
      if (this.started.size <= this.keep) break;
      this.started.delete(k);
      void dropped.then((r) => r && releaseTiles(r));
    }
    worker.ref();
    worker.postMessage({ type: 'job', id, path: image.path, pre } satisfies PreprocessJob);
  }

  take(
    image: ImageInput,
    pre: VlmConfig['preprocess'],
    crop?: unknown,
  ): Promise<PreprocessedImage | undefined> | undefined {
    if (crop || this.started.size === 0) return undefined;
    const key = keyOf(image, pre);
    const found = key ? this.started.get(key) : undefined;
    if (!key || !found || !('path' in image)) return undefined;
    this.started.delete(key);
    return found.then((r) => {
      const done = this.threadMs.get(found);
      this.threadMs.delete(found);
      if (r)
        this.log?.(
          `VLM: ${basename(image.path)}: tiles computed ahead on the preprocessing thread (${done?.ms.toFixed(0)} ms there${done?.recycled ? ', into a recycled buffer' : ''})`,
        );
      return r;
    });
  }

  /** Results the thread wrote into a buffer given back earlier (not fresh memory). */
  get recycled(): number {
    return this.recycledCount;
  }
  private recycledCount = 0;

  /** A released tile buffer: back to the thread's pool (transferred), or this thread's when it is gone. */
  private giveBack(buffer: ArrayBuffer): void {
    if (this.worker) this.worker.postMessage({ type: 'recycle', buffer } satisfies PreprocessRecycle, [buffer]);
    else threadTilePool.release(buffer);
  }

  /** Stops the thread; whatever was started resolves to nothing. */
  async close(): Promise<void> {
    this.off = true;
    const w = this.worker;
    this.worker = undefined;
    this.settleAll();
    if (w) await w.terminate();
  }

  private settleAll(): void {
    for (const resolve of this.waiting.values()) resolve(undefined);
    this.waiting.clear();
    this.started.clear();
  }

  private thread(): Worker | undefined {
    if (this.worker || this.off) return this.worker;
    if (!this.workerPath) {
      this.off = true;
      this.log?.(
        'VLM: preprocessing ahead is off (dist/preprocessWorker.js is missing); pages are preprocessed as they decode',
      );
      return undefined;
    }
    const w = new Worker(this.workerPath);
    w.on('message', (m: PreprocessReply) => {
      const resolve = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (m.ok) {
        this.recycledCount += m.recycled ? 1 : 0;
        sendBackTo(m.result.pixelValues.buffer as ArrayBuffer, (buffer) => this.giveBack(buffer));
      }
      // A page the thread could not read is read again where it decodes, which reports the error.
      resolve?.(m.ok ? m.result : undefined, m.ok ? { ms: m.ms, recycled: m.recycled } : undefined);
      if (this.waiting.size === 0) w.unref();
    });
    const stop = (why: string) => {
      if (this.worker !== w) return;
      this.worker = undefined;
      this.off = true;
      this.settleAll();
      this.log?.(`VLM: preprocessing ahead stopped (${why}); pages are preprocessed as they decode`);
    };
    w.on('error', (e) => stop(e.message));
    w.on('exit', (code) => stop(`the thread exited with code ${code}`));
    w.unref();
    this.worker = w;
    return w;
  }
}
