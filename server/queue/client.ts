/**
 * The submitting side of the queue, used by `folio serve --redis` and `folio convert --queue`:
 * stores the PDF and its record in Redis, adds the document's plan job, and reads status and
 * results back from Redis (nothing about a task lives only in the submitter's memory, so a
 * restarted service finds its tasks again).
 */
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { ConvertOptions } from '../../common/protocol';
import { connectRedis } from './connection';
import { QUEUE_NAME, type FolioJobData } from './keys';
import { DocStore, type AssetLayout, type DocResult, type DocStatus } from './store';
import { WORKER_OWNED_OPTIONS, type PictureLayout } from './schema';

export interface SubmitInput {
  name: string;
  pdf: Buffer;
  options: ConvertOptions;
  pages?: string;
  password?: string;
  /** Pages per range job (default 8). */
  rangePages?: number;
  maxPages?: number;
  /** Per-task timeout in ms (0 or absent: none). */
  timeoutMs?: number;
  /**
   * Where the crops go, as the submitter will lay them out beside its output: `folder` (named
   * `assetsFolder`, default `<stem>.assets`), `flat`, or `none` (no crops saved).
   */
  pictures?: PictureLayout;
  assetsFolder?: string;
}

export const JOB_DEFAULTS = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: { age: 3600, count: 10000 },
  removeOnFail: { age: 24 * 3600 },
} as const;

export class QueueClient {
  readonly store: DocStore;
  readonly queue: Queue<FolioJobData>;
  private readonly redis: Redis;
  private readonly queueConn: Redis;

  constructor(url: string, opts: { ttlSeconds?: number; log?: (m: string) => void } = {}) {
    const log = opts.log ?? ((m: string) => process.stderr.write(`folio: ${m}\n`));
    this.redis = connectRedis(url, log);
    this.store = new DocStore(this.redis, opts.ttlSeconds ?? 24 * 3600);
    // BullMQ does not close a connection it was given: keep it to close it ourselves.
    this.queueConn = this.redis.duplicate();
    this.queue = new Queue<FolioJobData>(QUEUE_NAME, { connection: this.queueConn });
    this.queue.on('error', () => undefined); // reported by the connection's retry log
  }

  async submit(input: SubmitInput): Promise<string> {
    // Workers refuse these (schema.ts); saying so here names the submitter's own setting.
    const owned = WORKER_OWNED_OPTIONS.find((k) => input.options[k] !== undefined);
    if (owned)
      throw new Error(
        `options.${owned} is not sent through the queue: folders, models and the remote VLM are each worker's own settings (folio worker --models, --vlm-url)`,
      );
    const id = randomUUID();
    const now = Date.now();
    await this.store.create(
      id,
      {
        name: input.name,
        options: input.options,
        pages: input.pages,
        password: input.password,
        rangePages: input.rangePages ?? 8,
        maxPages: input.maxPages,
        deadline: input.timeoutMs ? now + input.timeoutMs : 0,
        created: now,
        cancelled: false,
        pictures: input.pictures,
        assetsFolder: input.assetsFolder,
      },
      input.pdf,
    );
    await this.queue.add('plan', { kind: 'plan', docId: id }, { ...JOB_DEFAULTS, jobId: `${id}-plan` });
    return id;
  }

  status(id: string): Promise<DocStatus | undefined> {
    return this.store.status(id);
  }

  /** `layout`: the pictures layout this submitter chose; page links are checked against it, not the record's. */
  result(id: string, layout?: AssetLayout): Promise<DocResult | undefined> {
    return this.store.result(id, layout);
  }

  /** Marks the task cancelled: running ranges stop at their next check, waiting ones finish at once. */
  async cancel(id: string): Promise<boolean> {
    if (!(await this.store.record(id))) return false;
    await this.store.cancel(id);
    return true;
  }

  async ping(): Promise<boolean> {
    try {
      return (await this.redis.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  /** Polls until the task ends; `onProgress` sees each change of pages done. */
  async wait(
    id: string,
    onProgress?: (done: number, total: number | undefined) => void,
    signal?: AbortSignal,
    everyMs = 200,
  ): Promise<DocStatus> {
    let last = -1;
    for (;;) {
      const st = await this.store.status(id);
      if (!st) throw new Error(`task ${id} is unknown or expired`);
      if (st.pagesDone !== last) {
        last = st.pagesDone;
        onProgress?.(st.pagesDone, st.pagesTotal);
      }
      if (st.state !== 'pending' && st.state !== 'started') return st;
      if (signal?.aborted) {
        await this.cancel(id);
        return { ...st, state: 'cancelled' };
      }
      await new Promise((r) => setTimeout(r, everyMs));
    }
  }

  async close(): Promise<void> {
    await this.queue.close();
    this.queueConn.disconnect();
    this.redis.disconnect();
  }
}
