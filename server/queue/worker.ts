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

export async function startWorker(opts: WorkerOptions): Promise<RunningWorker> {
  const log = opts.log ?? ((m: string) => process.stderr.write(`folio worker: ${m}\n`));
  const redis: Redis = connectRedis(opts.redis, log);
  const store = new DocStore(redis, opts.ttlSeconds ?? 24 * 3600);
  // BullMQ does not close connections it was given: keep them to close them ourselves.
  const queueConn = redis.duplicate();
  const workerConn = redis.duplicate();
  const queue = new Queue<FolioJobData>(QUEUE_NAME, { connection: queueConn });
  queue.on('error', () => undefined);
  const pool = new PageWorkerPool({ size: opts.threads ?? 2 });
  // A private folder of our own (0700, unpredictable name): never a name another user could have made first.
  const scratch = mkdtempSync(join(tmpdir(), 'folio-worker-'));
  /** Removes a job folder only when it is verifiably a real folder directly inside the scratch folder. */
  const removeJobDir = (dir: string): void => {
    const st = lstatSync(dir, { throwIfNoEntry: false });
    if (!st) return;
    if (!isInside(scratch, dir) || resolve(dir, '..') !== scratch || !st.isDirectory()) {
      log(`not removing ${dir}: not a folder of this worker's scratch folder ${scratch}`);
      return;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  /** The job's data and its task's record, or an unrecoverable failure naming what is wrong. */
  const checked = async (job: Job<FolioJobData>): Promise<{ data: FolioJobData; rec: DocRecord | undefined }> => {
    let data: FolioJobData;
    try {
      data = parseJobData(job.data);
    } catch (e) {
      throw new UnrecoverableError(`job ${job.id} refused: ${messageOf(e)}`);
    }
    try {
      return { data, rec: await store.record(data.docId) };
    } catch (e) {
      if (!(e instanceof BadQueueDataError)) throw e;
      const message = `the task's record was refused: ${e.message}`;
      await store.fail(data.docId, message, 'input');
      throw new UnrecoverableError(message);
    }
  };
  /** The job's options with the worker's own places: nothing a job says can name a folder, a model or a URL. */
  const ownOptions = (rec: DocRecord): ConvertOptions => {
    const { cacheDir: _c, modelsDir: _m, remoteVlm: _r, assetsDir: _a, markdownDir: _d, ...fromJob } = rec.options;
    return { ...fromJob, renderImages: false, ...opts.own };
  };

  const fetchPdf = async (docId: string, name: string, dir: string): Promise<string> => {
    const bytes = await store.pdf(docId);
    if (!bytes) throw new UnrecoverableError(`the PDF of task ${docId} is no longer in Redis (expired?)`);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, safeFileName(name));
    writeFileSync(file, bytes);
    return file;
  };

  const plan = async (job: Job<FolioJobData>): Promise<void> => {
    const { data, rec } = await checked(job);
    const { docId } = data;
    if (!rec || (await store.shouldStop(docId))) return;
    const dir = join(scratch, `${docId}-plan`);
    try {
      const file = await fetchPdf(docId, rec.name, dir);
      const ref = { docId: `${docId}-plan-${job.attemptsMade}`, path: file, password: rec.password };
      let pageCount: number;
      try {
        pageCount = await pool.open(ref);
      } catch (e) {
        // Not a PDF, damaged, encrypted: no retry will change that.
        const message = messageOf(e);
        await store.fail(docId, message, kindOf(e));
        throw new UnrecoverableError(message);
      } finally {
        void pool.close(ref.docId);
      }
      // The page limit before a page is listed (a 1 KB PDF can declare a million pages): this
      // worker's own, or the record's when lower; a record never raises it.
      const limit = Math.min(opts.maxPages ?? DEFAULT_LIMITS.maxPages, rec.maxPages ?? Infinity);
      let selected: number[];
      try {
        const wanted = countPageSelection(rec.pages, pageCount);
        if (wanted > limit) {
          throw new FolioError(
            FolioErrorCodes.TooLarge,
            `${rec.name} ${rec.pages ? `selects ${wanted} pages` : `has ${pageCount} pages`}, more than the page limit of ${limit}: nothing was converted. If the file is trusted, raise the limit (folio convert --max-pages, folio serve --max-pages, folio worker --max-pages), or convert part of it with --pages.`,
          );
        }
        selected = parsePageSelection(rec.pages, pageCount);
      } catch (e) {
        await store.fail(docId, messageOf(e), kindOf(e));
        throw new UnrecoverableError(messageOf(e));
      }
      await store.setTotal(docId, selected.length, pageCount);
      const ranges = planRanges(selected, rec.rangePages, FURNITURE_WINDOW);
      await queue.addBulk(
        ranges.map((r, index) => ({
          name: 'range',
          data: { kind: 'range' as const, docId, index, pages: r.pages, context: r.context },
          opts: { ...JOB_DEFAULTS, jobId: `${docId}-r${index}` },
        })),
      );
    } finally {
      removeJobDir(dir);
    }
  };

  const range = async (job: Job<FolioJobData>): Promise<void> => {
    const c = await checked(job);
    const data = c.data as RangeJobData;
    const rec = c.rec;
    const { docId } = data;
    if (!rec || (await store.shouldStop(docId))) return;
    const dir = join(scratch, `${docId}-r${data.index}`);
    const abort = new AbortController();
    let stopReason: string | undefined;
    // Cancel, a failure elsewhere in the document or the deadline stop this range too.
    const check = setInterval(() => {
      store.shouldStop(docId).then(
        (r) => {
          if (r) {
            stopReason = r;
            abort.abort();
          }
        },
        () => undefined,
      );
    }, 500);
    log(`task ${docId} pages ${toSelection(data.pages)}: started (job ${job.id}, attempt ${job.attemptsMade + 1})`);
    const own = new Set(data.pages);
    let writes = Promise.resolve();
    let delivered = 0;
    /** The conversion's own error, kept when it is wrapped in an UnrecoverableError. */
    let cause: unknown;
    try {
      const file = await fetchPdf(docId, rec.name, dir);
      // The pictures as the submitter lays them out beside its output (schema.ts): crops in a
      // named folder, or flat beside the document, or none saved at all. Links are relative to `dir`.
      const pictures = rec.pictures ?? 'folder';
      const places =
        pictures === 'none'
          ? {}
          : { markdownDir: dir, assetsDir: pictures === 'flat' ? dir : join(dir, rec.assetsFolder!) };
      const store1 = async (p: PageResult) => {
        // Assets first: once the page is visible, everything it links to is there. The names are
        // the regions' picture files (what the exporters read), relative to `dir`.
        for (const r of p.regions) {
          if (!r.imagePath) continue;
          const path = join(dir, r.imagePath);
          if (!isInside(dir, path)) continue;
          await store.putAsset(docId, r.imagePath, readFileSync(path));
        }
        const { image: _local, imageWidth: _w, imageHeight: _h, ...portable } = p; // paths on this machine mean nothing elsewhere
        await store.putPage(docId, portable);
        delivered++;
        await job.updateProgress({ docId, page: p.page, delivered, of: data.pages.length });
      };
      await convertDocument(
        pool,
        {
          uri: file,
          pages: toSelection(data.context),
          password: rec.password,
          options: { ...ownOptions(rec), ...places },
        },
        {
          page: (p) => {
            if (own.has(p.page)) writes = writes.then(() => store1(p));
          },
        },
        abort.signal,
      ).catch(async (e: unknown) => {
        cause = e;
        const kind = kindOf(e);
        if (!RETRIED[kind]) {
          await store.fail(docId, messageOf(e), kind);
          throw new UnrecoverableError(messageOf(e));
        }
        throw e;
      });
      await writes;
      if (stopReason) log(`task ${docId} pages ${toSelection(data.pages)}: stopped (${stopReason})`);
    } catch (e) {
      await writes.catch(() => undefined);
      const last = job.attemptsMade + 1 >= (job.opts.attempts ?? 1) || e instanceof UnrecoverableError;
      if (last && rec) {
        // The document must still complete: its missing pages become page errors.
        const reason = `not converted after ${job.attemptsMade + 1} attempt(s): ${messageOf(e)}`;
        for (const page of data.pages)
          await store.putPage(
            docId,
            failedPageResult(page, rec.options.engine ?? 'pipeline', reason, kindOf(cause ?? e)),
          );
      }
      throw e;
    } finally {
      clearInterval(check);
      removeJobDir(dir);
    }
  };

  const worker = new Worker<FolioJobData>(
    QUEUE_NAME,
    async (job) => (job.data.kind === 'plan' ? plan(job) : range(job)),
    {
      connection: workerConn,
      concurrency: opts.concurrency ?? 1,
      lockDuration: opts.lockMs ?? 30000,
      stalledInterval: opts.lockMs ?? 30000,
      maxStalledCount: 5, // a stall requeues the job; only repeated stalls fail it
    },
  );
  worker.on('error', () => undefined); // the connection's retry log already says what is wrong
  worker.on('failed', (job, err) => {
    if (job) log(`job ${job.id} failed (attempt ${job.attemptsMade}): ${err.message}`);
  });
  await worker.waitUntilReady().catch(() => undefined);
  return {
    close: async (graceMs = 5000) => {
      // BullMQ's close waits on Redis (and on running jobs) with no bound of its own: a worker
      // cut off from Redis ignored SIGTERM (security round 3, F13).
      let timer: NodeJS.Timeout | undefined;
      const graceful = (async () => {
        await worker.close();
        await queue.close();
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
        log(`stopping without waiting further for Redis or the running job (${graceMs / 1000} s grace)`);
        void worker.close(true).catch(() => undefined);
      }
      for (const c of [workerConn, queueConn, redis]) c.disconnect();
      await Promise.all([pool.dispose(), disposeVlmEngines()]);
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}
