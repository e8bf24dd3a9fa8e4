/**
 * Names shared by everything that talks to the queue: the BullMQ queue name and the Redis keys
 * of a document's record, its PDF bytes, its page results and assets. Submitters (the service,
 * `folio convert --queue`) and workers on other machines agree on nothing else.
 */
export const QUEUE_NAME = 'folio-convert';
export const KEY_PREFIX = 'folio';

export const docKeys = (id: string) => ({
  /** Hash: name, options, pages, password, status fields, total, error, times. */
  record: `${KEY_PREFIX}:doc:${id}`,
  /** String: the PDF bytes (workers on other machines read the document from here). */
  pdf: `${KEY_PREFIX}:doc:${id}:pdf`,
  /** Hash: page number → PageResult JSON, written with HSETNX (a page delivered twice is stored once). */
  pages: `${KEY_PREFIX}:doc:${id}:pages`,
  /** Hash: page number → times delivered (≥ 1; more when a range was redone after a worker died). */
  deliveries: `${KEY_PREFIX}:doc:${id}:deliveries`,
  /** Hash: asset file name → bytes (picture crops). */
  assets: `${KEY_PREFIX}:doc:${id}:assets`,
});

/** Task ids are UUIDs; anything else in a URL or a job is refused before it reaches Redis. */
export const TASK_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface PlanJobData {
  kind: 'plan';
  docId: string;
}

export interface RangeJobData {
  kind: 'range';
  docId: string;
  index: number;
  pages: number[];
  context: number[];
}

export type FolioJobData = PlanJobData | RangeJobData;
