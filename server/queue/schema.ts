/**
 * What a `folio worker` or a submitter accepts from Redis. Anyone who can write to Redis can
 * write jobs, records, page results and assets, so nothing read back is trusted: every job's
 * data, every record field, every page result and every asset name is checked here against a
 * schema before it names a file, a folder, a URL or a zip entry (SECURITY.md, "Queue worker").
 *
 * Conversion options go through the backend's own allow-list (`convert/checkParams`), so the
 * queue accepts exactly what `folio/convert` accepts — minus the options that name places on the
 * worker's machine or the network (folders, models, the remote VLM): those come from the
 * worker's own configuration only (`folio worker --models/--vlm-url`).
 */
import { sha256Hex } from '../../common/sha256';
import {
  ERROR_KIND_CODES,
  REGION_CLASSES,
  type ConvertOptions,
  type EngineName,
  type ErrorKind,
  type PageResult,
  type Region,
} from '../../common/protocol';
import { checkOptions } from '../convert/checkParams';
import { TASK_ID, type FolioJobData } from './keys';

/** A record, job, page or asset in Redis that does not match the schema. */
export class BadQueueDataError extends Error {
  override name = 'BadQueueDataError';
}

/** Options a job may not carry: places on the worker's machine and the network. */
export const WORKER_OWNED_OPTIONS = ['cacheDir', 'assetsDir', 'markdownDir', 'modelsDir', 'remoteVlm'] as const;

/** Upper bounds: a page number, pages per range, a page's text. */
export const MAX_PAGE = 1_000_000;
export const MAX_RANGE_PAGES = 10_000;
const MAX_PAGE_TEXT = 32 * 1024 * 1024;
const MAX_NAME_BYTES = 255;

/** How a task's pictures are laid out: crops in a named folder beside the output, beside it flat, or none. */
export type PictureLayout = 'folder' | 'flat' | 'none';

const bad = (what: string): never => {
  throw new BadQueueDataError(what);
};

const isInt = (v: unknown, min: number, max: number): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;

export function checkTaskId(id: unknown): string {
  if (typeof id !== 'string' || !TASK_ID.test(id))
    bad(`task id ${JSON.stringify(String(id).slice(0, 80))} is not a UUID`);
  return id as string;
}

/**
 * One path segment a file may carry: no separators, no `.`/`..`, no control or format characters
 * (bidi overrides, zero-width), at most 255 bytes.
 */
export function checkFileName(name: unknown, what: string): string {
  if (typeof name !== 'string' || name.length === 0) return bad(`${what} is missing`);
  if (Buffer.byteLength(name) > MAX_NAME_BYTES) bad(`${what} is longer than ${MAX_NAME_BYTES} bytes`);
  if (name === '.' || name === '..' || /[/\\]/.test(name) || /\p{C}/u.test(name))
    bad(`${what} ${JSON.stringify(name)} is not a plain file name`);
  return name;
}

/** Crop file names as the pipeline writes them (`<stem>-p<page>-<k>.png`, `~hash` when shortened). */
const ASSET_FILE = /^[\p{L}\p{N}._~-]+\.png$/u;

/**
 * An asset's name in Redis is where it goes beside the output: `<folder>/<file>.png` (or
 * `<file>.png` for the flat layout). Checked before it is written anywhere or enters a zip.
 */
export function checkAssetName(name: string, layout: { pictures: PictureLayout; assetsFolder?: string }): string {
  const parts = name.split('/');
  const file = parts[parts.length - 1];
  const where = `asset ${JSON.stringify(name.slice(0, 120))}`;
  if (layout.pictures === 'none') bad(`${where}: the task saves no pictures`);
  if (layout.pictures === 'flat' ? parts.length !== 1 : parts.length !== 2 || parts[0] !== layout.assetsFolder) {
    bad(`${where} is not inside the task's pictures folder ${JSON.stringify(layout.assetsFolder ?? '')}`);
  }
  checkFileName(file, where);
  if (!ASSET_FILE.test(file)) bad(`${where} is not a picture file name (letters, digits, . _ ~ -, ending .png)`);
  return name;
}

/** The job data BullMQ hands the worker: a plan or a range of one task. */
export function parseJobData(data: unknown): FolioJobData {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return bad('job data is not an object');
  const d = data as Record<string, unknown>;
  const docId = checkTaskId(d.docId);
  if (d.kind === 'plan') {
    if (Object.keys(d).some((k) => k !== 'kind' && k !== 'docId')) bad('plan job has fields other than kind and docId');
    return { kind: 'plan', docId };
  }
  if (d.kind !== 'range')
    return bad(`job kind ${JSON.stringify(String(d.kind).slice(0, 40))} is neither plan nor range`);
  const extra = Object.keys(d).find((k) => !['kind', 'docId', 'index', 'pages', 'context'].includes(k));
  if (extra) bad(`range job field ${JSON.stringify(extra.slice(0, 40))} is not known`);
  if (!isInt(d.index, 0, MAX_PAGE)) bad('range job index is not a whole number from 0');
  const pageList = (v: unknown, what: string, max: number): number[] => {
    if (!Array.isArray(v) || v.length === 0 || v.length > max)
      return bad(`range job ${what} is not a list of 1 to ${max} pages`);
    for (let i = 0; i < v.length; i++) {
      if (!isInt(v[i], 1, MAX_PAGE)) bad(`range job ${what} holds ${JSON.stringify(v[i])}, not a page number`);
      if (i > 0 && (v[i] as number) <= (v[i - 1] as number)) bad(`range job ${what} is not in increasing page order`);
    }
    return v as number[];
  };
  const pages = pageList(d.pages, 'pages', MAX_RANGE_PAGES);
  const context = pageList(d.context, 'context', MAX_RANGE_PAGES + 4);
  if (!pages.every((p) => context.includes(p))) bad('range job context does not hold its own pages');
  return { kind: 'range', docId, index: d.index as number, pages, context };
}

/** A job's conversion options: the backend's allow-list, and nothing that belongs to the worker. */
export function checkJobOptions(options: unknown): ConvertOptions {
  const problem = checkOptions(options);
  if (problem) bad(problem);
  const o = (options ?? {}) as ConvertOptions;
  for (const k of WORKER_OWNED_OPTIONS) {
    if (o[k] !== undefined)
      bad(
        `options.${k} comes from the worker's own configuration (folio worker --models / --vlm-url), never from a job`,
      );
  }
  return o;
}

/** An error kind read back from Redis: one of the protocol's, nothing else. */
function checkKind(v: unknown, what: string): ErrorKind {
  if (typeof v !== 'string' || !Object.hasOwn(ERROR_KIND_CODES, v)) bad(`${what} is not an error kind`);
  return v as ErrorKind;
}

/** The record hash's fields, as strings from HGETALL. */
const RECORD_FIELDS = [
  'name',
  'options',
  'pages',
  'password',
  'rangePages',
  'maxPages',
  'deadline',
  'created',
  'total',
  'pageCount',
  'error',
  'errorKind',
  'cancelled',
  'pictures',
  'assetsFolder',
];

/** A task's record as the submitter writes it (server/queue/store.ts). */
export interface DocRecord {
  name: string;
  options: ConvertOptions;
  pages?: string;
  password?: string;
  rangePages: number;
  maxPages?: number;
  /** Epoch ms after which the task counts as failed (per-task timeout); 0 = none. */
  deadline: number;
  created: number;
  /** Pages selected (what "done" counts to) and pages in the PDF, known once a worker opened it. */
  total?: number;
  pageCount?: number;
  error?: string;
  /** The kind of `error` (docs/errors.md), written with it. */
  errorKind?: ErrorKind;
  cancelled: boolean;
  /** Where the task's picture crops go (server/queue/schema.ts): a folder (default `<stem>.assets`), flat, or none. */
  pictures?: PictureLayout;
  assetsFolder?: string;
}

/** A record read back and checked: the picture layout always known. */
export type CheckedRecord = DocRecord & { pictures: PictureLayout };

/** A task's PDF name as the worker writes it (letters, digits, `._-`; always ending `.pdf`), so the crops' names match an in-process conversion's. */
export function workerFileName(name: string): string {
  const clean = name.replace(/[^\p{L}\p{N}._-]+/gu, '_');
  const file = /\.pdf$/i.test(clean) ? clean : `${clean || 'document'}.pdf`;
  // A name near the 255-byte limit leaves no room for `.assets` (or `.pdf`): cut it (whole
  // characters) and add a hash of the full name, so two long names still differ (security round 3, F12).
  if (Buffer.byteLength(file) <= 200) return file;
  const hash = sha256Hex(name).slice(0, 8);
  let cut = '';
  for (const ch of file.replace(/\.pdf$/i, '')) {
    if (Buffer.byteLength(cut + ch) > 190) break;
    cut += ch;
  }
  return `${cut}~${hash}.pdf`;
}

/** The pictures folder a task's crops go to when the submitter named none (the service's zip layout). */
export function defaultAssetsFolder(name: string): string {
  return `${workerFileName(name).replace(/\.pdf$/i, '')}.assets`;
}

/** Checks a record read with HGETALL; undefined when there is none (expired or never created). */
export function parseRecord(h: Record<string, string>): CheckedRecord | undefined {
  if (Object.keys(h).length === 0) return undefined;
  const extra = Object.keys(h).find((k) => !RECORD_FIELDS.includes(k));
  if (extra) bad(`record field ${JSON.stringify(extra.slice(0, 40))} is not known`);
  const name = checkFileName(h.name, 'the document name');
  const text = (k: string, max: number): string | undefined => {
    const v = h[k];
    if (v === undefined) return undefined;
    if (v.length > max || v.includes('\0')) bad(`record field ${k} is longer than ${max} characters`);
    return v;
  };
  const int = (k: string, min: number, max: number): number | undefined => {
    const v = h[k];
    if (v === undefined) return undefined;
    const n = /^\d{1,16}$/.test(v) ? Number(v) : NaN;
    if (!isInt(n, min, max)) bad(`record field ${k} is not a whole number from ${min} to ${max}`);
    return n;
  };
  let options: unknown;
  try {
    options = JSON.parse(text('options', 64 * 1024) ?? '{}');
  } catch {
    bad('record field options is not JSON');
  }
  const pictures = h.pictures ?? 'folder';
  if (pictures !== 'folder' && pictures !== 'flat' && pictures !== 'none')
    bad('record field pictures is not folder, flat or none');
  const assetsFolder =
    pictures === 'folder'
      ? checkFileName(h.assetsFolder ?? defaultAssetsFolder(name), 'the pictures folder')
      : undefined;
  if (pictures !== 'folder' && h.assetsFolder !== undefined) bad('record field assetsFolder needs pictures = folder');
  if (h.cancelled !== undefined && h.cancelled !== '1' && h.cancelled !== '0')
    bad('record field cancelled is not 0 or 1');
  const pages = text('pages', 1000);
  if (pages !== undefined && !/^[\d\s,-]*$|^all$/.test(pages))
    bad('record field pages is not a page list such as 1-3,7');
  return {
    name,
    options: checkJobOptions(options),
    pages,
    password: text('password', 1024),
    rangePages: int('rangePages', 1, MAX_RANGE_PAGES) ?? 8,
    maxPages: int('maxPages', 1, MAX_PAGE),
    deadline: int('deadline', 0, Number.MAX_SAFE_INTEGER) ?? 0,
    created: int('created', 0, Number.MAX_SAFE_INTEGER) ?? 0,
    total: int('total', 0, MAX_PAGE),
    pageCount: int('pageCount', 0, MAX_PAGE),
    error: text('error', 4096),
    ...(h.errorKind !== undefined ? { errorKind: checkKind(h.errorKind, 'record field errorKind') } : {}),
    cancelled: h.cancelled === '1',
    pictures: pictures as PictureLayout,
    ...(assetsFolder !== undefined ? { assetsFolder } : {}),
  };
}

const PAGE_FIELDS = [
  'page',
  'width',
  'height',
  'doctags',
  'markdown',
  'regions',
  'engine',
  'provider',
  'ocr',
  'rotation',
  'warnings',
  'error',
  'errorKind',
];
const REGION_FIELDS = ['id', 'cls', 'level', 'bbox', 'grid', 'order', 'mdRange', 'imagePath'];

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function checkRegion(
  r: unknown,
  where: string,
  mdLength: number,
  layout: { pictures: PictureLayout; assetsFolder?: string },
): Region {
  if (typeof r !== 'object' || r === null || Array.isArray(r)) return bad(`${where} is not an object`);
  const o = r as Record<string, unknown>;
  const extra = Object.keys(o).find((k) => !REGION_FIELDS.includes(k));
  if (extra) bad(`${where} field ${JSON.stringify(extra.slice(0, 40))} is not known`);
  if (typeof o.id !== 'string' || o.id.length > 64) bad(`${where} id is not a short string`);
  if (!(REGION_CLASSES as readonly unknown[]).includes(o.cls)) bad(`${where} class is not a layout class`);
  if (o.level !== undefined && !isInt(o.level, 0, 100)) bad(`${where} level is not a whole number`);
  const b = o.bbox as Record<string, unknown> | null;
  if (
    typeof b !== 'object' ||
    b === null ||
    !['x0', 'y0', 'x1', 'y1'].every((k) => finite(b[k])) ||
    Object.keys(b).length !== 4
  )
    bad(`${where} bbox is not a box`);
  if (!Array.isArray(o.grid) || o.grid.length !== 4 || !o.grid.every((g) => isInt(g, 0, 500)))
    bad(`${where} grid is not a 0–500 box`);
  if (!isInt(o.order, 0, 1_000_000)) bad(`${where} order is not a whole number`);
  if (o.mdRange !== undefined) {
    const m = o.mdRange as Record<string, unknown> | null;
    if (
      typeof m !== 'object' ||
      m === null ||
      Object.keys(m).length !== 2 ||
      !isInt(m.start, 0, mdLength) ||
      !isInt(m.end, m.start as number, mdLength)
    )
      bad(`${where} mdRange is not a range of the page's Markdown`);
  }
  // The crop an exporter reads (embeds, or measures): one of the task's own assets, nothing else.
  if (o.imagePath !== undefined) {
    if (typeof o.imagePath !== 'string' || (o.cls !== 'picture' && o.cls !== 'chart'))
      bad(`${where} imagePath is not a picture's file`);
    checkAssetName(o.imagePath as string, layout);
  }
  return o as unknown as Region;
}

/**
 * A page result as stored by a worker. Besides its shape: no machine-local page image (`image`
 * is a path on the worker's machine), and every picture file a region names (`imagePath`, what
 * the exporters read) must be one of the task's assets (`checkAssetName`), so an exporter
 * embedding pictures never reads a file the page merely names.
 */
export function parsePageResult(
  json: string,
  key: string,
  layout: { pictures: PictureLayout; assetsFolder?: string },
): PageResult {
  const where = `page result ${JSON.stringify(key.slice(0, 12))}`;
  if (json.length > 2 * MAX_PAGE_TEXT) bad(`${where} is larger than ${(2 * MAX_PAGE_TEXT) / 1048576} MB`);
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch {
    bad(`${where} is not JSON`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return bad(`${where} is not an object`);
  const p = v as Record<string, unknown>;
  const extra = Object.keys(p).find((k) => !PAGE_FIELDS.includes(k));
  if (extra)
    bad(`${where} field ${JSON.stringify(extra.slice(0, 40))} is not known (a worker stores no machine-local paths)`);
  if (!isInt(p.page, 1, MAX_PAGE) || String(p.page) !== key) bad(`${where} page number does not match its key`);
  if (!finite(p.width) || !finite(p.height) || (p.width as number) < 0 || (p.height as number) < 0)
    bad(`${where} size is not two numbers`);
  for (const k of ['doctags', 'markdown'] as const)
    if (typeof p[k] !== 'string' || (p[k] as string).length > MAX_PAGE_TEXT) bad(`${where} ${k} is not text`);
  if (p.engine !== 'pipeline' && p.engine !== 'vlm') bad(`${where} engine is neither pipeline nor vlm`);
  if (p.provider !== undefined && (typeof p.provider !== 'string' || p.provider.length > 64))
    bad(`${where} provider is not a short string`);
  if (typeof p.ocr !== 'boolean') bad(`${where} ocr is not true or false`);
  if (p.rotation !== undefined && !finite(p.rotation)) bad(`${where} rotation is not a number`);
  if (
    !Array.isArray(p.warnings) ||
    p.warnings.length > 1000 ||
    !p.warnings.every((w) => typeof w === 'string' && w.length <= 4096)
  )
    bad(`${where} warnings are not a list of lines`);
  if (p.error !== undefined && (typeof p.error !== 'string' || p.error.length > 4096))
    bad(`${where} error is not a line of text`);
  if (p.errorKind !== undefined) checkKind(p.errorKind, `${where} errorKind`);
  if (!Array.isArray(p.regions) || p.regions.length > 100_000) bad(`${where} regions are not a list`);
  const mdLength = (p.markdown as string).length;
  (p.regions as unknown[]).forEach((r, i) => checkRegion(r, `${where} region ${i}`, mdLength, layout));
  return p as unknown as PageResult & { engine: EngineName };
}
