/**
 * Where the service's conversions run. `InProcessRunner` (the default) converts on this
 * process's page-worker pool and keeps task state in memory and files in the work folder;
 * `QueueRunner` (`folio serve --redis`) hands documents to `folio worker`s through BullMQ and
 * keeps everything in Redis, so a restarted service still answers for tasks submitted before.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  FolioErrorCodes,
  type ConvertOptions,
  type ConvertSummary,
  type ErrorKind,
  type PageResult,
} from '../../common/protocol';
import { CancelledError, FolioError, kindOf, messageOf } from '../errors';
import type { PageWorkerPool } from '../worker/pool';
import { convertDocument } from '../convert/convertDocument';
import { QueueClient } from '../queue/client';
import type { TaskState } from '../queue/store';
import type { WorkDir } from './workdir';

export type { TaskState };

export interface NewTask {
  /** The uploaded (or allowed local) PDF on disk. */
  file: string;
  /** The client's file name (checked: no path separators). */
  name: string;
  /**
   * True for a file the service wrote itself (an upload): removed once converted. A local file
   * read with --allow-local is the user's own and is never removed, wherever it lies.
   */
  owned: boolean;
  options: ConvertOptions;
  pages?: string;
  password?: string;
}

export interface TaskStatusView {
  id: string;
  state: TaskState;
  pagesDone: number;
  pagesTotal?: number;
  error?: string;
  /** Why it failed (docs/errors.md): what the HTTP status of a synchronous caller is made from. */
  errorKind?: ErrorKind;
  /** Place among tasks waiting here (in-process only). */
  position?: number;
}

export interface TaskResult {
  name: string;
  pages: PageResult[];
  summary: ConvertSummary;
  assets: Map<string, Buffer>;
}

export interface TaskRunner {
  readonly kind: 'in-process' | 'queue';
  submit(t: NewTask): Promise<string>;
  status(id: string): Promise<TaskStatusView | undefined>;
  result(id: string): Promise<TaskResult | undefined>;
  cancel(id: string): Promise<boolean>;
  /** Resolves when the task has ended (or `signal` aborts, cancelling it). */
  wait(id: string, signal?: AbortSignal): Promise<TaskStatusView | undefined>;
  ready(): Promise<boolean>;
  /** Documents (in-process) or jobs (queue) waiting to start: the service refuses new work above its limit. */
  backlog(): Promise<number>;
  /**
   * docling-serve's /v1/clear/results: forgets the results of tasks that ended more than
   * `olderThanMs` ago; the number forgotten, or undefined where the store keeps them for its own
   * time (the queue's Redis expiry).
   */
  clearResults?(olderThanMs: number): Promise<number>;
  close(): Promise<void>;
}

export interface Limits {
  maxPages: number;
  /** Most cells read of each workbook or CSV (in-process; the reader's default when absent). */
  maxCells?: number;
  timeoutMs: number;
  retentionMs: number;
}

interface LocalTask {
  id: string;
  input: NewTask;
  state: TaskState;
  pages: PageResult[];
  total?: number;
  error?: { message: string; kind: ErrorKind };
  summary?: ConvertSummary;
  abort: AbortController;
  /** Why the task was stopped (cancel, timeout, page limit); the first reason wins. */
  why?: FolioError;
  outDir: string;
  finished?: number;
  done: Promise<void>;
  settle: () => void;
}

export class InProcessRunner implements TaskRunner {
  readonly kind = 'in-process';
  private readonly tasks = new Map<string, LocalTask>();
  private readonly waiting: LocalTask[] = [];
  private running = 0;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly pool: PageWorkerPool,
    private readonly work: WorkDir,
    private readonly limits: Limits,
    /** Documents converted at once (their pages share the pool). */
    private readonly concurrency = 2,
  ) {
    this.sweeper = setInterval(() => this.sweep(), Math.min(60000, Math.max(1000, limits.retentionMs / 4)));
    this.sweeper.unref();
  }

  async submit(input: NewTask): Promise<string> {
    const id = randomUUID();
    let settle!: () => void;
    const done = new Promise<void>((r) => (settle = r));
    const t: LocalTask = {
      id,
      input,
      state: 'pending',
      pages: [],
      abort: new AbortController(),
      outDir: this.work.resultDir(id),
      done,
      settle,
    };
    this.tasks.set(id, t);
    this.waiting.push(t);
    this.pump();
    return id;
  }

  private pump(): void {
    while (this.running < this.concurrency && this.waiting.length > 0) {
      const t = this.waiting.shift()!;
      if (t.state !== 'pending') continue;
      this.running++;
      void this.run(t).finally(() => {
        this.running--;
        t.finished = Date.now();
        if (t.input.owned) this.work.remove(t.input.file);
        this.work.seal(t.outDir);
        t.settle();
        this.pump();
      });
    }
  }

  private async run(t: LocalTask): Promise<void> {
    t.state = 'started';
    const stop = (reason: FolioError) => {
      t.why ??= reason;
      t.abort.abort();
    };
    const timer =
      this.limits.timeoutMs > 0
        ? setTimeout(
            () =>
              stop(
                new FolioError(FolioErrorCodes.Timeout, `the task timed out after ${this.limits.timeoutMs / 1000} s`),
              ),
            this.limits.timeoutMs,
          )
        : undefined;
    const stem = t.input.name.replace(/\.pdf$/i, '');
    try {
      const summary = await convertDocument(
        this.pool,
        {
          uri: t.input.file,
          pages: t.input.pages,
          password: t.input.password,
          options: { ...t.input.options, markdownDir: t.outDir, assetsDir: join(t.outDir, `${stem}.assets`) },
          ...(this.limits.maxCells !== undefined ? { limits: { maxCells: this.limits.maxCells } } : {}),
        },
        {
          page: (p) => {
            const { image: _i, imageWidth: _w, imageHeight: _h, ...portable } = p;
            t.pages.push(portable);
          },
          progress: (_done, total) => {
            t.total = total;
            if (this.limits.maxPages > 0 && total > this.limits.maxPages)
              stop(
                new FolioError(
                  FolioErrorCodes.TooLarge,
                  `${t.input.name} has ${total} pages to convert; this service takes at most ${this.limits.maxPages} per document`,
                ),
              );
          },
        },
        t.abort.signal,
      );
      t.summary = summary;
      if (t.why) this.end(t, t.why);
      else t.state = 'success';
    } catch (e) {
      this.end(t, t.why ?? e);
    } finally {
      if (timer) clearTimeout(timer);
    }
  }

  /** A stopped or failed task: cancelled, or failed with the error's message and kind. */
  private end(t: LocalTask, e: unknown): void {
    const kind = kindOf(e);
    t.state = kind === 'cancelled' ? 'cancelled' : 'failure';
    if (kind !== 'cancelled') t.error = { message: messageOf(e), kind };
  }

  async status(id: string): Promise<TaskStatusView | undefined> {
    const t = this.tasks.get(id);
    if (!t) return undefined;
    const v: TaskStatusView = { id, state: t.state, pagesDone: t.pages.length, pagesTotal: t.total };
    if (t.error) {
      v.error = t.error.message;
      v.errorKind = t.error.kind;
    }
    if (t.state === 'pending') v.position = this.waiting.indexOf(t) + 1;
    return v;
  }

  async result(id: string): Promise<TaskResult | undefined> {
    const t = this.tasks.get(id);
    if (!t) return undefined;
    if (!t.summary) {
      if (t.state === 'pending' || t.state === 'started') return undefined;
      t.summary = {
        uri: t.input.name,
        pageCount: 0,
        pagesDone: [],
        cancelled: t.state === 'cancelled',
        doctags: '<doctag></doctag>',
        markdown: '',
        pageErrors: [],
        warnings: [],
        engine: t.input.options.engine ?? 'pipeline',
        elapsedMs: 0,
      };
    }
    const assets = new Map<string, Buffer>();
    const stem = t.input.name.replace(/\.pdf$/i, '');
    const dir = join(t.outDir, `${stem}.assets`);
    try {
      for (const n of readdirSync(dir)) assets.set(`${stem}.assets/${n}`, readFileSync(join(dir, n)));
    } catch {
      /* no pictures */
    }
    return { name: t.input.name, pages: t.pages, summary: { ...t.summary, uri: t.input.name }, assets };
  }

  async cancel(id: string): Promise<boolean> {
    const t = this.tasks.get(id);
    if (!t) return false;
    if (t.state === 'pending') {
      t.state = 'cancelled';
      t.finished = Date.now();
      if (t.input.owned) this.work.remove(t.input.file);
      t.settle();
    } else if (t.state === 'started') {
      // convertDocument stops and returns the pages done; run() then marks the task cancelled.
      t.why ??= new CancelledError('the task');
      t.abort.abort();
    }
    return true;
  }

  async wait(id: string, signal?: AbortSignal): Promise<TaskStatusView | undefined> {
    const t = this.tasks.get(id);
    if (!t) return undefined;
    const onAbort = () => void this.cancel(id);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await t.done;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    return this.status(id);
  }

  async ready(): Promise<boolean> {
    return true;
  }

  async backlog(): Promise<number> {
    return this.waiting.filter((t) => t.state === 'pending').length;
  }

  private sweep(olderThanMs = this.limits.retentionMs): number {
    const now = Date.now();
    let n = 0;
    for (const [id, t] of this.tasks) {
      if (t.finished && now - t.finished >= olderThanMs) {
        this.tasks.delete(id);
        this.work.remove(t.outDir);
        n++;
      }
    }
    return n;
  }

  async clearResults(olderThanMs: number): Promise<number> {
    return this.sweep(olderThanMs);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    for (const t of this.tasks.values()) t.abort.abort();
    await Promise.all([...this.tasks.values()].map((t) => t.done));
  }
}

export class QueueRunner implements TaskRunner {
  readonly kind = 'queue';
  readonly client: QueueClient;
  /**
   * The tasks this service submitted, with when it first saw each one ended (what
   * `/v1/clear/results?older_then=` measures); `clearResults` deletes their keys.
   */
  private readonly submitted = new Map<string, { endedAt?: number }>();

  constructor(
    url: string,
    private readonly work: WorkDir,
    private readonly limits: Limits,
    private readonly rangePages?: number,
  ) {
    this.client = new QueueClient(url, { ttlSeconds: Math.max(60, Math.round(limits.retentionMs / 1000)) });
  }

  async submit(t: NewTask): Promise<string> {
    try {
      const id = await this.client.submit({
        name: t.name,
        pdf: readFileSync(t.file),
        options: t.options,
        pages: t.pages,
        password: t.password,
        maxPages: this.limits.maxPages || undefined,
        timeoutMs: this.limits.timeoutMs || undefined,
        rangePages: this.rangePages,
      });
      this.submitted.set(id, {});
      return id;
    } finally {
      if (t.owned) this.work.remove(t.file); // the bytes now live in Redis
    }
  }

  async status(id: string): Promise<TaskStatusView | undefined> {
    const s = await this.client.status(id);
    if (s) this.noteEnd(id, s.state);
    return s ? { id, ...s } : undefined;
  }

  private noteEnd(id: string, state: TaskState): void {
    const t = this.submitted.get(id);
    if (t && t.endedAt === undefined && state !== 'pending' && state !== 'started') t.endedAt = Date.now();
  }

  /**
   * /v1/clear/results on the queue: the keys of this service's tasks that ended more than
   * `olderThanMs` ago are deleted from Redis (record, PDF, pages, assets), so their results are
   * gone at once — before, only the in-memory record went, and the result was still served from
   * Redis until its TTL (security round 4, N10). Tasks still running are kept.
   */
  async clearResults(olderThanMs: number): Promise<number> {
    const now = Date.now();
    let n = 0;
    for (const [id, t] of [...this.submitted]) {
      const s = await this.client.status(id);
      if (!s) {
        this.submitted.delete(id); // expired
        continue;
      }
      this.noteEnd(id, s.state);
      if (t.endedAt === undefined || now - t.endedAt < olderThanMs) continue;
      await this.client.store.remove(id);
      this.submitted.delete(id);
      n++;
    }
    return n;
  }

  async result(id: string): Promise<TaskResult | undefined> {
    const r = await this.client.result(id);
    if (!r) return undefined;
    return { ...r, assets: await this.client.store.assets(id) };
  }

  cancel(id: string): Promise<boolean> {
    return this.client.cancel(id);
  }

  async wait(id: string, signal?: AbortSignal): Promise<TaskStatusView | undefined> {
    if (!(await this.client.status(id))) return undefined;
    const s = await this.client.wait(id, undefined, signal, 100);
    this.noteEnd(id, s.state);
    return { id, ...s };
  }

  ready(): Promise<boolean> {
    return this.client.ping();
  }

  async backlog(): Promise<number> {
    return this.client.queue.getWaitingCount();
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
