/**
 * Reading a conversion request into a submitted job: admission against the service's limits,
 * a multipart upload streamed to the work folder, a JSON body's sources (base64 files, URLs, a
 * local path with --allow-local), the docling-serve options of either, and the job handed to
 * jobs.ts. Every refusal is an HttpError with what the client can do about it, and no refused,
 * failed or abandoned request leaves a file behind in the work folder.
 *
 * The routes that take documents (routes/convert.ts) are a few lines each over `RequestReader`.
 */
import { createWriteStream, statSync, writeFileSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import type { MultipartFile, MultipartValue } from '@fastify/multipart';
import { OptionsError, toConvertOptions } from './options';
import { readChunking, readOptions, type ChunkingRequest, type RequestOptions } from './doclingOptions';
import { HttpError } from './httpError';
import { isZipTarget } from './doclingTargets';
import { checkName, localInput, readyInput, type StoredInput } from './inputs';
import { fetchSource, SourceError } from './sources';
import type { StreamedFile } from './jsonSources';
import type { Job } from './jobs';
import type { ServeContext } from './context';

/** A stored file before it is made convertible: where it lies and the client's name for it. */
interface StoredFile {
  path: string;
  name: string;
}

type SourceItem = { kind?: unknown; base64_string?: unknown; filename?: unknown; url?: unknown; headers?: unknown };

/** What a multipart upload brought: its files (stored) and its fields (a repeated field as a list). */
interface Upload {
  files: StoredFile[];
  fields: Record<string, unknown>;
  removeAll: () => void;
}

const CONVERT_FORM_EXTRAS = ['target_type', 'callbacks'];
const CALLBACKS_WARNING = 'callbacks: not supported by Folio; poll /v1/status/poll/{task_id}';
/** The top-level fields a JSON body may have, by job type. */
const JSON_FIELDS: Record<Job['type'], string[]> = {
  convert: ['options', 'sources', 'file_sources', 'http_sources', 'target', 'callbacks', 'path'],
  chunk: [
    'convert_options',
    'chunking_options',
    'sources',
    'file_sources',
    'http_sources',
    'include_converted_doc',
    'target',
    'callbacks',
  ],
};

/** Form fields → options: a repeated field is a list; `prefix` (chunk forms: convert_, chunking_) picks and strips. */
function pick(fields: Record<string, unknown>, prefix: string, except: string[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields))
    if (k.startsWith(prefix) && !except.includes(k)) out[k.slice(prefix.length)] = v;
  return out;
}

/** doclingOptions.ts's refusals as the 400 the client sees. */
function optionsOf<T>(read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof OptionsError) throw new HttpError(400, 'bad_option', e.message);
    throw e;
  }
}

/** Runs `step`; if it throws, `undo` first. */
function orUndo<T>(undo: () => void, step: () => T): T {
  try {
    return step();
  } catch (e) {
    undo();
    throw e;
  }
}

/** Refuses work the service cannot take now, before a byte of the body is stored. */
export async function admit(ctx: ServeContext, req: FastifyRequest | undefined, bodyLimit: number): Promise<void> {
  const { cfg, limits } = ctx;
  const length = Number(req?.headers['content-length']);
  if (Number.isFinite(length) && length > bodyLimit) {
    throw new HttpError(
      413,
      'too_large',
      `the request body (${length} bytes) is larger than this service's limit of ${cfg.maxUploadBytes} bytes per upload`,
    );
  }
  if (ctx.uploadsInFlight >= limits.maxUploadsInFlight) {
    throw new HttpError(
      429,
      'too_many_uploads',
      `this service receives at most ${limits.maxUploadsInFlight} uploads at once: retry in a few seconds`,
      { 'retry-after': '5' },
    );
  }
  const waiting = await cfg.runner.backlog();
  if (waiting >= limits.maxQueued) {
    throw new HttpError(
      503,
      'queue_full',
      `${waiting} documents are already waiting (this service's limit is ${limits.maxQueued}): retry later`,
      { 'retry-after': '30' },
    );
  }
}

export class RequestReader {
  constructor(private readonly ctx: ServeContext) {}

  /** A multipart form (files and docling-serve's option fields) submitted as a job. */
  async submitForm(
    req: FastifyRequest,
    type: Job['type'],
    chunker: ChunkingRequest['chunker'] = 'hybrid',
  ): Promise<Job> {
    const u = await this.readUpload(req);
    const warnings: string[] = [];
    const { opts, chunking } = orUndo(u.removeAll, () => this.formOptions(u.fields, type, chunker, warnings));
    const zip = orUndo(
      u.removeAll,
      () => isZipTarget(u.fields.target_type, type) || (type === 'convert' && opts.returnAsFile === true),
    );
    const inputs = await this.readyAll(u.files, opts);
    const include = u.fields.include_converted_doc;
    return this.ctx.jobs.submit(type, inputs, opts, toConvertOptions(opts.api, this.ctx.cfg.baseOptions), {
      zip,
      chunking,
      includeConvertedDoc: include === 'true' || include === true,
      warnings,
    });
  }

  /** A JSON body (sources and docling-serve's options) submitted as a job. */
  async submitJson(
    req: FastifyRequest,
    type: Job['type'],
    chunker: ChunkingRequest['chunker'] = 'hybrid',
  ): Promise<Job> {
    const b = req.body;
    if (typeof b !== 'object' || b === null || Array.isArray(b))
      throw new HttpError(415, 'unsupported_media_type', 'send a JSON object (Content-Type: application/json)');
    const body = b as Record<string, unknown>;
    const known = JSON_FIELDS[type];
    const unknown = Object.keys(body).find((k) => !known.includes(k));
    if (unknown) throw new HttpError(400, 'bad_request', `field "${unknown}" is not known here (${known.join(', ')})`);
    const optsRaw = (type === 'convert' ? body.options : body.convert_options) ?? {};
    if (typeof optsRaw !== 'object' || Array.isArray(optsRaw))
      throw new HttpError(400, 'bad_option', 'options must be an object');
    const opts = optionsOf(() => readOptions(optsRaw as Record<string, unknown>, false));
    const chunkRaw = body.chunking_options ?? {};
    const chunking =
      type === 'chunk' ? optionsOf(() => readChunking(chunkRaw as Record<string, unknown>, false, chunker)) : undefined;
    const target = body.target as { kind?: unknown } | undefined;
    const zip = isZipTarget(target?.kind, type) || (type === 'convert' && opts.returnAsFile === true);
    const warnings: string[] = [];
    if (Array.isArray(body.callbacks) && body.callbacks.length > 0) warnings.push(CALLBACKS_WARNING);
    // Admitted (and counted) before its body was read: app.ts's preParsing hook.
    let inputs: StoredInput[];
    try {
      inputs = await this.readSources(body, opts, this.ctx.streamed.get(req));
    } finally {
      this.ctx.jsonSlots.get(req)?.();
    }
    return this.ctx.jobs.submit(type, inputs, opts, toConvertOptions(opts.api, this.ctx.cfg.baseOptions), {
      zip,
      chunking,
      includeConvertedDoc: body.include_converted_doc === true,
      warnings,
    });
  }

  /** A form's options: convert forms take docling-serve's names, chunk forms convert_… and chunking_…. */
  private formOptions(
    fields: Record<string, unknown>,
    type: Job['type'],
    chunker: ChunkingRequest['chunker'],
    warnings: string[],
  ): { opts: RequestOptions; chunking?: ChunkingRequest } {
    if (type === 'convert') {
      const opts = optionsOf(() => readOptions(pick(fields, '', CONVERT_FORM_EXTRAS), true));
      if (fields.callbacks !== undefined) warnings.push(CALLBACKS_WARNING);
      return { opts };
    }
    const rest = Object.keys(fields).filter(
      (k) =>
        !k.startsWith('convert_') && !k.startsWith('chunking_') && k !== 'include_converted_doc' && k !== 'target_type',
    );
    if (rest.length > 0)
      throw new HttpError(
        400,
        'bad_option',
        `option "${rest[0]}" is not known here: chunk forms take convert_<option>, chunking_<option>, include_converted_doc and target_type`,
      );
    const opts = optionsOf(() => readOptions(pick(fields, 'convert_'), true));
    const chunking = optionsOf(() => readChunking(pick(fields, 'chunking_'), true, chunker));
    return { opts, chunking };
  }

  /**
   * Streams the uploaded files into the work folder under generated names (mode 0600) and
   * returns them with the form's fields (a repeated field as a list). A refused, failed or
   * abandoned upload leaves no file behind: the files are removed when the request ends without
   * a complete body (the client went away).
   */
  async readUpload(req: FastifyRequest): Promise<Upload> {
    const { ctx } = this;
    if (!req.isMultipart())
      throw new HttpError(415, 'unsupported_media_type', 'send the files as multipart/form-data in a "files" field');
    await admit(ctx, req, ctx.cfg.maxUploadBytes + 1024 * 1024);
    ctx.uploadsInFlight++;
    const fields: Record<string, unknown> = {};
    const files: StoredFile[] = [];
    let total = 0;
    const removeAll = () => {
      for (const f of files) ctx.cfg.work.remove(f.path);
    };
    const onGone = () => {
      if (!req.raw.complete) removeAll();
    };
    req.raw.once('close', onGone);
    try {
      for await (const part of req.parts()) {
        if (part.type === 'file') total = await this.storePart(part, files, total);
        else addField(fields, part);
      }
    } catch (e) {
      removeAll();
      throw e;
    } finally {
      ctx.uploadsInFlight--;
      req.raw.off('close', onGone);
    }
    if (files.length === 0) {
      throw new HttpError(400, 'missing_file', 'no file: send the PDF in a multipart field named "files"');
    }
    return { files, fields, removeAll };
  }

  /** One uploaded file to the work folder (listed in `files` before a byte is written); the request's new total. */
  private async storePart(part: MultipartFile, files: StoredFile[], total: number): Promise<number> {
    const { cfg } = this.ctx;
    if (part.fieldname !== 'files' && part.fieldname !== 'file') {
      part.file.resume();
      throw new HttpError(400, 'bad_field', `unexpected file field "${part.fieldname}": send the files in "files"`);
    }
    const name = orUndo(
      () => part.file.resume(),
      () => checkName(part.filename ?? ''),
    );
    const path = cfg.work.newUpload();
    files.push({ path, name });
    await pipeline(part.file, createWriteStream(path, { flags: 'wx', mode: 0o600 }));
    if (part.file.truncated)
      throw new HttpError(
        413,
        'too_large',
        `${name} is larger than this service's limit of ${cfg.maxUploadBytes} bytes`,
      );
    const sum = total + statSync(path).size;
    if (sum > cfg.maxUploadBytes)
      throw new HttpError(
        413,
        'too_large',
        `the files of this request together are larger than this service's limit of ${cfg.maxUploadBytes} bytes`,
      );
    return sum;
  }

  /** Makes every stored file convertible; on the first refusal removes them all. */
  async readyAll(files: StoredFile[], opts: RequestOptions): Promise<StoredInput[]> {
    const { work } = this.ctx.cfg;
    const ready: StoredInput[] = [];
    try {
      for (const f of files) ready.push(await readyInput(work, f.path, f.name, true, opts.fromFormats));
    } catch (e) {
      for (const f of files) work.remove(f.path);
      throw e;
    }
    return ready;
  }

  /** The JSON body's sources (v1 `sources`, or the earlier `file_sources` / `http_sources`) stored in the work folder. */
  async readSources(
    b: Record<string, unknown>,
    opts: RequestOptions,
    files?: Map<string, StreamedFile>,
  ): Promise<StoredInput[]> {
    const { cfg } = this.ctx;
    const items = this.sourceItems(b);
    const stored: StoredFile[] = [];
    const sum = { total: 0 };
    try {
      for (const it of items) {
        if (typeof it !== 'object' || it === null)
          throw new HttpError(400, 'bad_request', 'each source must be an object');
        const path = cfg.work.newUpload();
        if (it.kind === 'file') this.storeFileSource(it, path, stored, sum, files);
        else if (it.kind === 'http') await this.storeHttpSource(it, path, stored, sum);
        else
          throw new HttpError(
            400,
            'bad_request',
            `source kind ${JSON.stringify(it.kind ?? null).slice(0, 40)} is not supported: use "file" or "http"`,
          );
      }
    } catch (e) {
      for (const f of stored) cfg.work.remove(f.path);
      throw e;
    }
    const ready = await this.readyAll(stored, opts);
    if (typeof b.path === 'string')
      ready.push(await localInput(cfg.work, cfg.allowLocalRoot, b.path, opts.fromFormats));
    return ready;
  }

  /** Every source of the body in one list, each spelling's kind made explicit; refused when too many or none. */
  private sourceItems(b: Record<string, unknown>): SourceItem[] {
    const { maxFiles } = this.ctx;
    const list = (v: unknown, what: string): SourceItem[] => {
      if (v === undefined || v === null) return [];
      if (!Array.isArray(v)) throw new HttpError(400, 'bad_request', `"${what}" must be a list`);
      return v as SourceItem[];
    };
    const items: SourceItem[] = [
      ...list(b.sources, 'sources'),
      ...list(b.file_sources, 'file_sources').map((x) => ({ ...x, kind: 'file' })),
      ...list(b.http_sources, 'http_sources').map((x) => ({ ...x, kind: 'http' })),
    ];
    if (items.length > maxFiles)
      throw new HttpError(
        413,
        'too_many_files',
        `${items.length} sources in one request; this service takes at most ${maxFiles}`,
      );
    if (items.length === 0 && typeof b.path !== 'string')
      throw new HttpError(
        400,
        'missing_source',
        'no source: give "sources" ([{"kind": "file", "base64_string", "filename"}] or [{"kind": "http", "url"}]), or upload to /v1/convert/file',
      );
    return items;
  }

  /** A base64 file source: already on disk (streamed while the body arrived) or decoded to `path` now. */
  private storeFileSource(
    it: SourceItem,
    path: string,
    stored: StoredFile[],
    sum: { total: number },
    files?: Map<string, StreamedFile>,
  ): void {
    const { maxUploadBytes } = this.ctx.cfg;
    if (typeof it.base64_string !== 'string' || typeof it.filename !== 'string')
      throw new HttpError(400, 'bad_request', 'a file source needs "base64_string" and "filename"');
    const name = checkName(it.filename);
    const tooLarge = () =>
      new HttpError(413, 'too_large', `${name} is larger than this service's limit of ${maxUploadBytes} bytes`);
    const file = files?.get(it.base64_string);
    if (file) {
      // Already decoded to disk while the body arrived (app.ts's JSON parser).
      files!.delete(it.base64_string);
      stored.push({ path: file.path, name });
      sum.total += file.bytes;
      if (sum.total > maxUploadBytes) throw tooLarge();
      return;
    }
    if (!/^[A-Za-z0-9+/=\s_-]*$/.test(it.base64_string))
      throw new HttpError(400, 'bad_base64', `${name}: base64_string is not base64`);
    const bytes = Buffer.from(it.base64_string, 'base64');
    sum.total += bytes.length;
    if (bytes.length > maxUploadBytes || sum.total > maxUploadBytes) throw tooLarge();
    writeFileSync(path, bytes, { flag: 'wx', mode: 0o600 });
    stored.push({ path, name });
  }

  /** An http source fetched to `path` under the service's policy (sources.ts), within what the request has left. */
  private async storeHttpSource(it: SourceItem, path: string, stored: StoredFile[], sum: { total: number }) {
    const { cfg } = this.ctx;
    if (typeof it.url !== 'string') throw new HttpError(400, 'bad_request', 'an http source needs "url"');
    const headers: Record<string, string> = {};
    if (it.headers && typeof it.headers === 'object')
      for (const [k, v] of Object.entries(it.headers)) if (typeof v === 'string') headers[k] = v;
    stored.push({ path, name: 'document' });
    try {
      const got = await fetchSource(it.url, headers, path, {
        enabled: cfg.httpSources?.enabled ?? false,
        allowPrivate: cfg.httpSources?.allowPrivate ?? false,
        maxBytes: cfg.maxUploadBytes - sum.total,
        timeoutMs: cfg.httpSources?.timeoutMs ?? 60_000,
        connectForTest: cfg.httpSources?.connectForTest,
      });
      stored[stored.length - 1]!.name = got.name;
      sum.total += statSync(path).size;
    } catch (e) {
      if (e instanceof SourceError) throw new HttpError(e.statusCode, 'bad_source', e.message);
      throw e;
    }
  }
}

/** A form field; a repeated one becomes a list. */
function addField(fields: Record<string, unknown>, part: MultipartValue): void {
  const prev = fields[part.fieldname];
  fields[part.fieldname] =
    prev === undefined ? part.value : Array.isArray(prev) ? [...prev, part.value] : [prev, part.value];
}
