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
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { PageResult } from '../protocol';
import { PageWorkerPool } from '../worker/pool';
import { convertDocument, FURNITURE_WINDOW } from '../convert/convertDocument';
import { failedPageResult } from '../convert/pageResult';
import { parsePageSelection } from '../convert/pageSelection';
import { disposeVlmEngines } from '../convert/vlmEngine';
import { connectRedis } from './connection';
import { JOB_DEFAULTS } from './client';
import { QUEUE_NAME, type FolioJobData, type RangeJobData } from './keys';
import { planRanges, toSelection } from './ranges';
import { DocStore } from './store';

export interface WorkerOptions {
  redis: string;
  /** Page-worker threads (default 2). */
  threads?: number;
  /** Jobs run at once by this process (default 1). */
  concurrency?: number;
  /** BullMQ lock duration: a job whose worker stops renewing it for this long is taken over. */
  lockMs?: number;
  ttlSeconds?: number;
  log?: (m: string) => void;
}

export interface RunningWorker {
  close(): Promise<void>;
}

/** PDF names become file names here: keep letters, digits, dot, dash, underscore. */
export function safeFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? 'document.pdf';
  const clean = base.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, '');
  return /\.pdf$/i.test(clean) ? clean : `${clean || 'document'}.pdf`;
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
  const scratch = join(tmpdir(), `folio-worker-${process.pid}`);

  const fetchPdf = async (docId: string, name: string, dir: string): Promise<string> => {
    const bytes = await store.pdf(docId);
    if (!bytes) throw new UnrecoverableError(`the PDF of task ${docId} is no longer in Redis (expired?)`);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, safeFileName(name));
    writeFileSync(file, bytes);
    return file;
  };

  const plan = async (job: Job<FolioJobData>): Promise<void> => {
    const { docId } = job.data;
    const rec = await store.record(docId);
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
        const message = e instanceof Error ? e.message : String(e);
        await store.fail(docId, message);
        throw new UnrecoverableError(message);
      } finally {
        void pool.close(ref.docId);
      }
      let selected: number[];
      try {
        selected = parsePageSelection(rec.pages, pageCount);
      } catch (e) {
        await store.fail(docId, (e as Error).message);
        throw new UnrecoverableError((e as Error).message);
      }
      if (rec.maxPages && selected.length > rec.maxPages) {
        const message = `${rec.name} has ${selected.length} pages to convert; this service takes at most ${rec.maxPages} per document`;
        await store.fail(docId, message);
        throw new UnrecoverableError(message);
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
      rmSync(dir, { recursive: true, force: true });
    }
  };

  const range = async (job: Job<FolioJobData>): Promise<void> => {
    const data = job.data as RangeJobData;
    const { docId } = data;
    const rec = await store.record(docId);
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
    try {
      const file = await fetchPdf(docId, rec.name, dir);
      const stem = safeFileName(rec.name).replace(/\.pdf$/i, '');
      const assetsDir = join(dir, `${stem}.assets`);
      const store1 = async (p: PageResult) => {
        // Assets first: once the page is visible, everything it links to is there.
        const prefix = `${stem}-p${p.page}-`;
        let names: string[] = [];
        try {
          names = readdirSync(assetsDir).filter((n) => n.startsWith(prefix));
        } catch {
          /* no pictures on this range */
        }
        for (const n of names) await store.putAsset(docId, `${stem}.assets/${n}`, readFileSync(join(assetsDir, n)));
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
          options: { ...rec.options, markdownDir: dir, assetsDir },
        },
        {
          page: (p) => {
            if (own.has(p.page)) writes = writes.then(() => store1(p));
          },
        },
        abort.signal,
      ).catch(async (e: unknown) => {
        const message = e instanceof Error ? e.message : String(e);
        if ((e as Error)?.name === 'FolioError') {
          await store.fail(docId, message);
          throw new UnrecoverableError(message);
        }
        throw e;
      });
      await writes;
      if (stopReason) log(`task ${docId} pages ${toSelection(data.pages)}: stopped (${stopReason})`);
    } catch (e) {
      await writes.catch(() => undefined);
      const last = job.attemptsMade + 1 >= (job.opts.attempts ?? 1) || e instanceof UnrecoverableError;
      if (last) {
        // The document must still complete: its missing pages become page errors.
        const reason = `not converted after ${job.attemptsMade + 1} attempt(s): ${e instanceof Error ? e.message : String(e)}`;
        for (const page of data.pages) await store.putPage(docId, failedPageResult(page, rec.options.engine ?? 'pipeline', reason));
      }
      throw e;
    } finally {
      clearInterval(check);
      rmSync(dir, { recursive: true, force: true });
    }
  };

  const worker = new Worker<FolioJobData>(QUEUE_NAME, async (job) => (job.data.kind === 'plan' ? plan(job) : range(job)), {
    connection: workerConn,
    concurrency: opts.concurrency ?? 1,
    lockDuration: opts.lockMs ?? 30000,
    stalledInterval: opts.lockMs ?? 30000,
    maxStalledCount: 5, // a stall requeues the job; only repeated stalls fail it
  });
  worker.on('error', () => undefined); // the connection's retry log already says what is wrong
  worker.on('failed', (job, err) => {
    if (job) log(`job ${job.id} failed (attempt ${job.attemptsMade}): ${err.message}`);
  });
  await worker.waitUntilReady().catch(() => undefined);
  return {
    close: async () => {
      await worker.close();
      await queue.close();
      await Promise.all([pool.dispose(), disposeVlmEngines()]);
      for (const c of [workerConn, queueConn, redis]) c.disconnect();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}
