/**
 * `folio worker`: takes conversion jobs from the BullMQ queue and runs them on this machine's
 * page-worker pool with the same orchestrator as an in-process conversion.
 *
 * A document's `plan` job opens the PDF, counts its pages and adds one `range` job per slice of
 * the selection (job ids derived from the task id, so a plan redone after a crash adds nothing
 * twice). A range job converts its pages plus the furniture window on each side and stores only
 * its own pages (HSETNX). BullMQ's lock and stalled-job check hand the job of a worker that died
 * to another one; retries back off exponentially. On a range's last failed attempt its missing
 * pages are stored as page errors, so the document still completes.
 */
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { FolioErrorCodes, type ConvertOptions, type PageResult } from '../../common/protocol';
import { FolioError, kindOf, messageOf } from '../errors';
import { RETRIED } from './retries';
import { PageWorkerPool } from '../worker/pool';
import { convertDocument, FURNITURE_WINDOW } from '../convert/convertDocument';
import { failedPageResult } from '../convert/pageResult';
import { countPageSelection, parsePageSelection } from '../convert/pageSelection';
import { DEFAULT_LIMITS } from '../worker/limits';
import { disposeVlmEngines } from '../convert/vlmEngine';
import { connectRedis } from './connection';
import { JOB_DEFAULTS } from './client';
import { QUEUE_NAME, type FolioJobData, type RangeJobData } from './keys';
import { planRanges, toSelection } from './ranges';
import { DocStore, type DocRecord } from './store';
import { BadQueueDataError, parseJobData, workerFileName } from './schema';
import { isInside } from '../../common/safeWrite';

export interface WorkerOptions {
  redis: string;
  /** Page-worker threads (default 2). */
  threads?: number;
  /** Jobs run at once by this process (default 1). */
  concurrency?: number;
  /** BullMQ lock duration: a job whose worker stops renewing it for this long is taken over. */
  lockMs?: number;
  ttlSeconds?: number;
  /**
   * Most pages converted of one document (default DEFAULT_LIMITS.maxPages): applied whatever the
   * record says; a record's own maxPages can only lower it (security round 3, F2).
   */
  maxPages?: number;
  /**
   * The options that name places (folders, models, the remote VLM): the worker's own
   * configuration, never a job's (server/queue/schema.ts). `cacheDir` defaults to the per-user
   * page cache, `modelsDir` to the model manager's folder.
   */
  own?: Pick<ConvertOptions, 'cacheDir' | 'modelsDir' | 'remoteVlm'>;
  log?: (m: string) => void;
}

export interface RunningWorker {
  /**
   * Stops taking jobs and lets the running ones finish for at most `graceMs` (default 5000); past
   * that, or with Redis gone, it stops without them: the page threads are ended, the connections
   * dropped, and BullMQ hands an unfinished job to another worker when its lock expires.
   */
  close(graceMs?: number): Promise<void>;
}

/** PDF names become file names here: letters, digits, dot, dash, underscore; always `.pdf`. */
export function safeFileName(name: string): string {
  return workerFileName(name.split(/[\\/]/).pop() ?? 'document.pdf');
}

/** What stops a running range early: cancel, a failure elsewhere in the document, the deadline. */
interface StopWatch {
  signal: AbortSignal;
  /** Why it stopped, once it has. */
  reason(): string | undefined;
  end(): void;
}

/**
 * One `folio worker` process: its Redis connections, its BullMQ worker and queue, its page-worker
 * pool and its private scratch folder. BullMQ calls `run` for each job it hands over; `plan` and
 * `range` are the two kinds of job.
 */
export class QueueWorker implements RunningWorker {
  private readonly log: (m: string) => void;
  private readonly redis: Redis;
  private readonly store: DocStore;
  // BullMQ does not close connections it was given: keep them to close them ourselves.
  private readonly queueConn: Redis;
  private readonly workerConn: Redis;
  private readonly queue: Queue<FolioJobData>;
  private readonly pool: PageWorkerPool;
  /** A private folder of our own (0700, unpredictable name): never a name another user could have made first. */
  private readonly scratch: string;
  private worker!: Worker<FolioJobData>;

  private constructor(private readonly opts: WorkerOptions) {
    this.log = opts.log ?? ((m: string) => process.stderr.write(`folio worker: ${m}\n`));
    this.redis = connectRedis(opts.redis, this.log);
    this.store = new DocStore(this.redis, opts.ttlSeconds ?? 24 * 3600);
    this.queueConn = this.redis.duplicate();
    this.workerConn = this.redis.duplicate();
    this.queue = new Queue<FolioJobData>(QUEUE_NAME, { connection: this.queueConn });
    this.queue.on('error', () => undefined);
    this.pool = new PageWorkerPool({ size: opts.threads ?? 2 });
    this.scratch = mkdtempSync(join(tmpdir(), 'folio-worker-'));
  }

  /** A worker taking jobs once BullMQ's connection is ready (or has failed: the connection's retry log says why). */
  static async start(opts: WorkerOptions): Promise<QueueWorker> {
    const w = new QueueWorker(opts);
    await w.listen();
    return w;
  }

  private async listen(): Promise<void> {
    const { opts } = this;
    this.worker = new Worker<FolioJobData>(QUEUE_NAME, async (job) => this.run(job), {
      connection: this.workerConn,
      concurrency: opts.concurrency ?? 1,
      lockDuration: opts.lockMs ?? 30000,
      stalledInterval: opts.lockMs ?? 30000,
      maxStalledCount: 5, // a stall requeues the job; only repeated stalls fail it
    });
    this.worker.on('error', () => undefined); // the connection's retry log already says what is wrong
    this.worker.on('failed', (job, err) => {
      if (job) this.log(`job ${job.id} failed (attempt ${job.attemptsMade}): ${err.message}`);
    });
    await this.worker.waitUntilReady().catch(() => undefined);
  }

  /** One job BullMQ handed to this worker. */
  private run(job: Job<FolioJobData>): Promise<void> {
    return job.data.kind === 'plan' ? this.plan(job) : this.range(job);
  }

  /** Removes a job folder only when it is verifiably a real folder directly inside the scratch folder. */
  private removeJobDir(dir: string): void {
    const { scratch } = this;
    const st = lstatSync(dir, { throwIfNoEntry: false });
    if (!st) return;
    if (!isInside(scratch, dir) || resolve(dir, '..') !== scratch || !st.isDirectory()) {
      this.log(`not removing ${dir}: not a folder of this worker's scratch folder ${scratch}`);
      return;
    }
    rmSync(dir, { recursive: true, force: true });
  }

  /** The job's data and its task's record, or an unrecoverable failure naming what is wrong. */
  private async checked(job: Job<FolioJobData>): Promise<{ data: FolioJobData; rec: DocRecord | undefined }> {
    let data: FolioJobData;
    try {
      data = parseJobData(job.data);
    } catch (e) {
      throw new UnrecoverableError(`job ${job.id} refused: ${messageOf(e)}`);
    }
    try {
      return { data, rec: await this.store.record(data.docId) };
    } catch (e) {
      if (!(e instanceof BadQueueDataError)) throw e;
      const message = `the task's record was refused: ${e.message}`;
      await this.store.fail(data.docId, message, 'input');
      throw new UnrecoverableError(message);
    }
  }

  /** The job's options with the worker's own places: nothing a job says can name a folder, a model or a URL. */
  private ownOptions(rec: DocRecord): ConvertOptions {
    const { cacheDir: _c, modelsDir: _m, remoteVlm: _r, assetsDir: _a, markdownDir: _d, ...fromJob } = rec.options;
    return { ...fromJob, renderImages: false, ...this.opts.own };
  }

  private async fetchPdf(docId: string, name: string, dir: string): Promise<string> {
    const bytes = await this.store.pdf(docId);
    if (!bytes) throw new UnrecoverableError(`the PDF of task ${docId} is no longer in Redis (expired?)`);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, safeFileName(name));
    writeFileSync(file, bytes);
    return file;
  }

  /** A document's first job: count its pages, check the selection and the limit, add its range jobs. */
  private async plan(job: Job<FolioJobData>): Promise<void> {
    const { data, rec } = await this.checked(job);
    const { docId } = data;
    if (!rec || (await this.store.shouldStop(docId))) return;
    const dir = join(this.scratch, `${docId}-plan`);
    try {
      const file = await this.fetchPdf(docId, rec.name, dir);
      const pageCount = await this.countPages(docId, file, rec, job.attemptsMade);
      const selected = await this.selectPages(docId, rec, pageCount);
      await this.store.setTotal(docId, selected.length, pageCount);
      const ranges = planRanges(selected, rec.rangePages, FURNITURE_WINDOW);
      await this.queue.addBulk(
        ranges.map((r, index) => ({
          name: 'range',
          data: { kind: 'range' as const, docId, index, pages: r.pages, context: r.context },
          opts: { ...JOB_DEFAULTS, jobId: `${docId}-r${index}` },
        })),
      );
    } finally {
      this.removeJobDir(dir);
    }
  }

  /** The PDF's page count; a PDF that does not open fails the task for good. */
  private async countPages(docId: string, file: string, rec: DocRecord, attempt: number): Promise<number> {
    const ref = { docId: `${docId}-plan-${attempt}`, path: file, password: rec.password };
    try {
      return await this.pool.open(ref);
    } catch (e) {
      // Not a PDF, damaged, encrypted: no retry will change that.
      const message = messageOf(e);
      await this.store.fail(docId, message, kindOf(e));
      throw new UnrecoverableError(message);
    } finally {
      void this.pool.close(ref.docId);
    }
  }

  /** The pages to convert, checked against the page limit before a page is listed (a 1 KB PDF can declare a million pages). */
  private async selectPages(docId: string, rec: DocRecord, pageCount: number): Promise<number[]> {
    // This worker's own limit, or the record's when lower; a record never raises it.
    const limit = Math.min(this.opts.maxPages ?? DEFAULT_LIMITS.maxPages, rec.maxPages ?? Infinity);
    try {
      const wanted = countPageSelection(rec.pages, pageCount);
      if (wanted > limit) {
        throw new FolioError(
          FolioErrorCodes.TooLarge,
          `${rec.name} ${rec.pages ? `selects ${wanted} pages` : `has ${pageCount} pages`}, more than the page limit of ${limit}: nothing was converted. If the file is trusted, raise the limit (folio convert --max-pages, folio serve --max-pages, folio worker --max-pages), or convert part of it with --pages.`,
        );
      }
      return parsePageSelection(rec.pages, pageCount);
    } catch (e) {
      await this.store.fail(docId, messageOf(e), kindOf(e));
      throw new UnrecoverableError(messageOf(e));
    }
  }

  /** The heartbeat of a running range: the task's stop flag read every 500 ms. */
  private watchForStop(docId: string): StopWatch {
    const abort = new AbortController();
    let stopReason: string | undefined;
    const check = setInterval(() => {
      this.store.shouldStop(docId).then(
        (r) => {
          if (r) {
            stopReason = r;
            abort.abort();
          }
        },
        () => undefined,
      );
    }, 500);
    return { signal: abort.signal, reason: () => stopReason, end: () => clearInterval(check) };
  }

  /** A slice of a document: convert its pages (with the furniture window around them) and store its own pages. */
  private async range(job: Job<FolioJobData>): Promise<void> {
    const c = await this.checked(job);
    const data = c.data as RangeJobData;
    const rec = c.rec;
    const { docId } = data;
    if (!rec || (await this.store.shouldStop(docId))) return;
    const dir = join(this.scratch, `${docId}-r${data.index}`);
    // Cancel, a failure elsewhere in the document or the deadline stop this range too.
    const stop = this.watchForStop(docId);
    this.log(
      `task ${docId} pages ${toSelection(data.pages)}: started (job ${job.id}, attempt ${job.attemptsMade + 1})`,
    );
    const own = new Set(data.pages);
    let writes = Promise.resolve();
    let delivered = 0;
    /** The conversion's own error, kept when it is wrapped in an UnrecoverableError. */
    let cause: unknown;
    try {
      const file = await this.fetchPdf(docId, rec.name, dir);
      const storePage = async (p: PageResult) => {
        await this.storePage(docId, dir, p);
        delivered++;
        await job.updateProgress({ docId, page: p.page, delivered, of: data.pages.length });
      };
      await convertDocument(
        this.pool,
        {
          uri: file,
          pages: toSelection(data.context),
          password: rec.password,
          options: { ...this.ownOptions(rec), ...picturePlaces(rec, dir) },
        },
        {
          page: (p) => {
            if (own.has(p.page)) writes = writes.then(() => storePage(p));
          },
        },
        stop.signal,
      ).catch(async (e: unknown) => {
        cause = e;
        throw await this.failedConversion(docId, e);
      });
      await writes;
      const reason = stop.reason();
      if (reason) this.log(`task ${docId} pages ${toSelection(data.pages)}: stopped (${reason})`);
    } catch (e) {
      await writes.catch(() => undefined);
      await this.storeMissingPages(job, data, rec, e, cause);
      throw e;
    } finally {
      stop.end();
      this.removeJobDir(dir);
    }
  }

  /** A conversion's failure: one no retry will change fails the task and is unrecoverable; the others are retried. */
  private async failedConversion(docId: string, e: unknown): Promise<unknown> {
    const kind = kindOf(e);
    if (RETRIED[kind]) return e;
    await this.store.fail(docId, messageOf(e), kind);
    return new UnrecoverableError(messageOf(e));
  }

  /** One of the range's own pages into Redis, its pictures first. */
  private async storePage(docId: string, dir: string, p: PageResult): Promise<void> {
    // Assets first: once the page is visible, everything it links to is there. The names are
    // the regions' picture files (what the exporters read), relative to `dir`.
    for (const r of p.regions) {
      if (!r.imagePath) continue;
      const path = join(dir, r.imagePath);
      if (!isInside(dir, path)) continue;
      await this.store.putAsset(docId, r.imagePath, readFileSync(path));
    }
    const { image: _local, imageWidth: _w, imageHeight: _h, ...portable } = p; // paths on this machine mean nothing elsewhere
    await this.store.putPage(docId, portable);
  }

  /** On a range's last attempt the document must still complete: its missing pages become page errors. */
  private async storeMissingPages(
    job: Job<FolioJobData>,
    data: RangeJobData,
    rec: DocRecord,
    e: unknown,
    cause: unknown,
  ): Promise<void> {
    const last = job.attemptsMade + 1 >= (job.opts.attempts ?? 1) || e instanceof UnrecoverableError;
    if (!last) return;
    const reason = `not converted after ${job.attemptsMade + 1} attempt(s): ${messageOf(e)}`;
    for (const page of data.pages)
      await this.store.putPage(
        data.docId,
        failedPageResult(page, rec.options.engine ?? 'pipeline', reason, kindOf(cause ?? e)),
      );
  }

  /**
   * Stops taking jobs and lets the running ones finish for at most `graceMs`; past that, or with
   * Redis gone, stops without them (RunningWorker.close).
   */
  async close(graceMs = 5000): Promise<void> {
    // BullMQ's close waits on Redis (and on running jobs) with no bound of its own: a worker
    // cut off from Redis ignored SIGTERM (security round 3, F13).
    let timer: NodeJS.Timeout | undefined;
    const graceful = (async () => {
      await this.worker.close();
      await this.queue.close();
    })().then(
      () => true,
      () => false,
    );
    const inTime = await Promise.race([
      graceful,
      new Promise<false>((r) => (timer = setTimeout(() => r(false), graceMs))),
    ]);
    clearTimeout(timer);
    if (!inTime) {
      this.log(`stopping without waiting further for Redis or the running job (${graceMs / 1000} s grace)`);
      void this.worker.close(true).catch(() => undefined);
    }
    for (const c of [this.workerConn, this.queueConn, this.redis]) c.disconnect();
    await Promise.all([this.pool.dispose(), disposeVlmEngines()]);
    rmSync(this.scratch, { recursive: true, force: true });
  }
}

/**
 * The pictures as the submitter lays them out beside its output (schema.ts): crops in a named
 * folder, or flat beside the document, or none saved at all. Links are relative to `dir`.
 */
function picturePlaces(rec: DocRecord, dir: string): Pick<ConvertOptions, 'markdownDir' | 'assetsDir'> {
  const pictures = rec.pictures ?? 'folder';
  if (pictures === 'none') return {};
  return { markdownDir: dir, assetsDir: pictures === 'flat' ? dir : join(dir, rec.assetsFolder!) };
}

/** Starts a worker (QueueWorker.start); what `folio worker` runs. */
export async function startWorker(opts: WorkerOptions): Promise<RunningWorker> {
  return QueueWorker.start(opts);
}
