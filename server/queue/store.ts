/**
 * A document's state in Redis, readable by any submitter and writable by any worker: the record
 * (name, options, page total, error, cancel and deadline), the PDF bytes, page results and
 * assets. Every key carries the result TTL. Page and asset writes are HSETNX, so a range redone
 * after a worker died stores each page once.
 */
import type { Redis } from 'ioredis';
import type { ConvertSummary, ErrorKind, PageResult } from '../../common/protocol';
import { joinDocTags, joinPages } from '../convert/pageResult';
import { docKeys } from './keys';
import {
  BadQueueDataError,
  checkAssetName,
  checkTaskId,
  parsePageResult,
  parseRecord,
  type DocRecord,
  type PictureLayout,
} from './schema';

export type { DocRecord } from './schema';

export type TaskState = 'pending' | 'started' | 'success' | 'failure' | 'cancelled';

export interface DocStatus {
  state: TaskState;
  pagesDone: number;
  pagesTotal?: number;
  error?: string;
  errorKind?: ErrorKind;
}

/** Where a task's crops go: the layout its submitter chose (and keeps in memory, never reads back). */
export interface AssetLayout {
  pictures: PictureLayout;
  assetsFolder?: string;
}

/**
 * The layout asset names are checked against. A submitter that knows the layout it chose passes
 * it: then nothing read from Redis decides a path, and a record whose layout was rewritten is
 * refused. Without one (the service, which writes only inside its work folder) the record's.
 */
function layoutFor(rec: DocRecord, expected: AssetLayout | undefined): AssetLayout {
  const stored: AssetLayout = { pictures: rec.pictures ?? 'folder', assetsFolder: rec.assetsFolder };
  if (!expected) return stored;
  if (stored.pictures !== expected.pictures || (stored.assetsFolder ?? '') !== (expected.assetsFolder ?? ''))
    throw new BadQueueDataError(
      `the task's pictures layout in Redis (${stored.pictures} ${JSON.stringify(stored.assetsFolder ?? '')}) is not the one this submitter chose (${expected.pictures} ${JSON.stringify(expected.assetsFolder ?? '')}): the record was changed in Redis`,
    );
  return expected;
}

export interface DocResult {
  name: string;
  pages: PageResult[];
  summary: ConvertSummary;
}

export class DocStore {
  constructor(
    readonly redis: Redis,
    readonly ttlSeconds: number,
  ) {}

  private async touch(id: string): Promise<void> {
    const k = docKeys(id);
    const m = this.redis.multi();
    for (const key of Object.values(k)) m.expire(key, this.ttlSeconds);
    await m.exec();
  }

  async create(id: string, rec: DocRecord, pdf: Buffer): Promise<void> {
    const k = docKeys(id);
    const fields: Record<string, string> = {
      name: rec.name,
      options: JSON.stringify(rec.options),
      rangePages: String(rec.rangePages),
      deadline: String(rec.deadline),
      created: String(rec.created),
    };
    if (rec.pages) fields.pages = rec.pages;
    if (rec.password) fields.password = rec.password;
    if (rec.maxPages) fields.maxPages = String(rec.maxPages);
    if (rec.pictures && rec.pictures !== 'folder') fields.pictures = rec.pictures;
    if (rec.assetsFolder !== undefined) fields.assetsFolder = rec.assetsFolder;
    parseRecord(fields); // what a worker will refuse is refused here first, with the same message
    await this.redis.multi().hset(k.record, fields).set(k.pdf, pdf).exec();
    await this.touch(id);
  }

  /** Deletes every key of the task (record, PDF, pages, deliveries, assets): its results are gone at once, not at their TTL. */
  async remove(id: string): Promise<number> {
    return this.redis.del(...Object.values(docKeys(checkTaskId(id))));
  }

  /** The record, checked against the schema (a hostile or damaged one throws BadQueueDataError). */
  async record(id: string): Promise<DocRecord | undefined> {
    return parseRecord(await this.redis.hgetall(docKeys(checkTaskId(id)).record));
  }

  pdf(id: string): Promise<Buffer | null> {
    return this.redis.getBuffer(docKeys(id).pdf);
  }

  async setTotal(id: string, total: number, pageCount: number): Promise<void> {
    await this.redis.hset(docKeys(id).record, { total: String(total), pageCount: String(pageCount) });
  }

  /** The first error wins: later ones are usually consequences of it. Message and kind are set together (MULTI). */
  async fail(id: string, message: string, kind: ErrorKind): Promise<void> {
    await this.redis
      .multi()
      .hsetnx(docKeys(id).record, 'error', message)
      .hsetnx(docKeys(id).record, 'errorKind', kind)
      .exec();
  }

  async cancel(id: string): Promise<void> {
    await this.redis.hset(docKeys(id).record, 'cancelled', '1');
  }

  /** Whether workers should stop on this document (cancelled, failed, past its deadline, or expired). */
  async shouldStop(id: string): Promise<string | undefined> {
    const [cancelled, error, deadline, name] = await this.redis.hmget(
      docKeys(id).record,
      'cancelled',
      'error',
      'deadline',
      'name',
    );
    if (!name) return 'the task expired';
    if (cancelled === '1') return 'cancelled';
    if (error) return error;
    if (Number(deadline) > 0 && Date.now() > Number(deadline)) return 'timed out';
    return undefined;
  }

  /** Stores a page once; returns whether this delivery was the first. */
  async putPage(id: string, result: PageResult): Promise<boolean> {
    const k = docKeys(id);
    const [[, first]] = (await this.redis
      .multi()
      .hsetnx(k.pages, String(result.page), JSON.stringify(result))
      .hincrby(k.deliveries, String(result.page), 1)
      .exec()) as [[Error | null, number], [Error | null, number]];
    await this.touch(id);
    return first === 1;
  }

  async putAsset(id: string, name: string, bytes: Buffer): Promise<void> {
    await this.redis.hsetnx(docKeys(id).assets, name, bytes);
  }

  /** The task's picture crops; every name checked (checkAssetName) before it names a file or a zip entry. */
  async assets(id: string, expected?: AssetLayout): Promise<Map<string, Buffer>> {
    const rec = await this.record(id);
    if (!rec) return new Map();
    const layout = layoutFor(rec, expected);
    const h = await this.redis.hgetallBuffer(docKeys(id).assets);
    return new Map(Object.entries(h).map(([name, bytes]) => [checkAssetName(name, layout), bytes]));
  }

  async deliveries(id: string): Promise<Map<number, number>> {
    const h = await this.redis.hgetall(docKeys(id).deliveries);
    return new Map(Object.entries(h).map(([p, n]) => [Number(p), Number(n)]));
  }

  async status(id: string): Promise<DocStatus | undefined> {
    let rec: DocRecord | undefined;
    try {
      rec = await this.record(id);
    } catch (e) {
      // A record no worker will take (damaged or hostile) is a failed task, not an error of the
      // submitter: the service answers its status instead of 500 (security round 3, F8).
      if (!(e instanceof BadQueueDataError)) throw e;
      return {
        state: 'failure',
        pagesDone: 0,
        error: `the task's record was refused: ${e.message}`,
        errorKind: 'input',
      };
    }
    if (!rec) return undefined;
    const pagesDone = await this.redis.hlen(docKeys(id).pages);
    const base = { pagesDone, pagesTotal: rec.total };
    if (rec.total !== undefined && pagesDone >= rec.total) return { ...base, state: 'success' };
    if (rec.cancelled) return { ...base, state: 'cancelled' };
    if (rec.error) return { ...base, state: 'failure', error: rec.error, errorKind: rec.errorKind ?? 'internal' };
    if (rec.deadline > 0 && Date.now() > rec.deadline)
      return {
        ...base,
        state: 'failure',
        error: `the task timed out after ${Math.round((rec.deadline - rec.created) / 1000)} s`,
        errorKind: 'timeout',
      };
    return { ...base, state: rec.total === undefined ? 'pending' : 'started' };
  }

  /** Pages stored so far, in page order, and the document assembled from them. */
  async result(id: string, expected?: AssetLayout): Promise<DocResult | undefined> {
    const rec = await this.record(id);
    if (!rec) return undefined;
    const layout = layoutFor(rec, expected);
    const raw = await this.redis.hgetall(docKeys(id).pages);
    const pages = Object.entries(raw)
      .map(([key, json]) => parsePageResult(json, key, layout))
      .sort((a, b) => a.page - b.page);
    const warnings: string[] = [];
    for (const r of pages) for (const w of r.warnings) warnings.push(`page ${r.page}: ${w}`);
    const st = await this.status(id);
    const summary: ConvertSummary = {
      uri: rec.name,
      pageCount: rec.pageCount ?? 0,
      pagesDone: pages.filter((p) => !p.error).map((p) => p.page),
      cancelled: st?.state === 'cancelled',
      doctags: joinDocTags(pages),
      markdown: joinPages(pages),
      pageErrors: pages
        .filter((p) => p.error)
        .map((p) => ({ page: p.page, kind: p.errorKind ?? 'internal', message: `page ${p.page}: ${p.error}` })),
      warnings,
      engine: rec.options.engine ?? 'pipeline',
      elapsedMs: 0,
    };
    // As convertDocument: the provider of the last page that ran a model.
    const provider = pages.reduce<string | undefined>((last, p) => p.provider ?? last, undefined);
    if (provider) summary.provider = provider;
    return { name: rec.name, pages, summary };
  }
}
