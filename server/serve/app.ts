/**
 * `folio serve`: the HTTP API (Fastify), a drop-in for docling-serve's v1 API (matched against
 * docling-serve 1.31.0; docs/serve.md): POST /v1/convert/file and /v1/convert/source (and their
 * /async forms), /v1/chunk/hybrid/{file,source}[/async], GET /v1/status/poll/{task_id},
 * the WebSocket /v1/status/ws/{task_id} (statusWebSocket.ts), GET /v1/result/{task_id}, POST /v1/tasks/{task_id}/cancel, /health, /ready, /version,
 * /openapi.json and /docs. docling-serve's option names are read by doclingOptions.ts, inputs
 * made ready by inputs.ts and sources.ts, answers shaped by doclingResult.ts over jobs.ts.
 *
 * Every error is JSON `{detail, error: {status, code, message}}` (`detail` as FastAPI answers);
 * 4xx for what the client can fix, a bare 500 otherwise (details go to the log, never a stack
 * trace to the client). Every request first passes guard.ts.
 */
import { createWriteStream, statSync, realpathSync, writeFileSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { relative, isAbsolute, basename, resolve } from 'node:path';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import swagger from '@fastify/swagger';
import websocket from '@fastify/websocket';
import type { ConvertOptions } from '../../common/protocol';
import { HTTP_STATUS } from './httpStatus';
import { TASK_ID } from '../queue/keys';
import { OptionsError, toConvertOptions } from './options';
import { readChunking, readOptions, type ChunkingRequest, type RequestOptions } from './doclingOptions';
import type { TaskRunner } from './tasks';
import type { WorkDir } from './workdir';
import { corsHeaders, gate, limitConnections, redactQueryKey, refuse } from './guard';
import {
  DEFAULT_STATUS_SOCKETS,
  registerStatusWebSocket,
  STATUS_WS_MAX_PAYLOAD,
  type StatusSocketLimits,
} from './statusWebSocket';
import { HttpError } from './httpError';
import { isZipTarget, PRESIGNED_UNAVAILABLE } from './doclingTargets';
import { checkName, readyInput, type StoredInput } from './inputs';
import { fetchSource, SourceError, type HttpSourcePolicy } from './sources';
import { JsonBodyError, readJsonSources, type StreamedFile } from './jsonSources';
import { Jobs, type Job } from './jobs';
import { completeOpenApi, docsPage, DOCS_CSP, type OpenApiNode } from './openapi';

export { HttpError };

export interface ServeConfig {
  runner: TaskRunner;
  work: WorkDir;
  /** Defaults for every request (engine, models folder, remote VLM) from the command line. */
  baseOptions: ConvertOptions;
  apiKey?: string;
  maxUploadBytes: number;
  /** A folder whose PDFs /v1/convert/source may read by path; absent: local paths refused. */
  allowLocalRoot?: string;
  version: string;
  /** Host names accepted besides IP literals and localhost (`--allow-host`; `*` any). */
  allowedHosts?: string[];
  /** Web origins allowed to call the service (`--allow-origin`); none by default. */
  allowedOrigins?: string[];
  limits?: Partial<ServiceLimits>;
  /** Files in one request (multipart or sources); default 20. */
  maxFilesPerRequest?: number;
  /** docling-serve's http sources: off unless `--allow-http-sources`; private addresses only with `--allow-private-sources`. */
  httpSources?: {
    enabled: boolean;
    allowPrivate: boolean;
    timeoutMs?: number;
    connectForTest?: HttpSourcePolicy['connectForTest'];
  };
  /** How long a multi-document request's record is kept (the runner keeps the documents); default 1 h. */
  retentionMs?: number;
  /** Where Fastify's request log goes (JSON lines); none by default. `api_key` query values are redacted. */
  requestLog?: NodeJS.WritableStream;
  /** The WebSocket status route's bounds (each socket also counts as a connection). */
  statusSockets?: Partial<StatusSocketLimits>;
}

/** What one service takes at once (issue 21 item 10); each excess is answered, never queued silently. */
export interface ServiceLimits {
  /** Open connections; more → 503 and closed. */
  maxConnections: number;
  /** Uploads being received at once; more → 429. */
  maxUploadsInFlight: number;
  /** Documents (in-process) or jobs (queue) waiting to start; more → 503. */
  maxQueued: number;
  /** Time to receive a whole request (headers and body); slower → the connection is closed. */
  requestTimeoutMs: number;
}

export const DEFAULT_LIMITS: ServiceLimits = {
  maxConnections: 64,
  maxUploadsInFlight: 16,
  maxQueued: 100,
  requestTimeoutMs: 300_000,
};

const TASK_PARAMS = {
  type: 'object',
  required: ['task_id'],
  // No pattern here: a malformed id is an unknown task, 404 as docling-serve answers (jobOr404).
  properties: { task_id: { type: 'string', maxLength: 200 } },
} as const;

/** Form fields → options: a repeated field is a list; `prefix` (chunk forms: convert_, chunking_) picks and strips. */
function pick(fields: Record<string, unknown>, prefix: string, except: string[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields))
    if (k.startsWith(prefix) && !except.includes(k)) out[k.slice(prefix.length)] = v;
  return out;
}

const CONVERT_FORM_EXTRAS = ['target_type', 'callbacks'];

export async function buildServer(cfg: ServeConfig): Promise<FastifyInstance> {
  const limits: ServiceLimits = { ...DEFAULT_LIMITS, ...cfg.limits };
  const maxFiles = cfg.maxFilesPerRequest ?? 20;
  // base64 is 4/3 of the bytes: a JSON body may carry one upload's worth of files, encoded.
  const jsonLimit = Math.ceil(cfg.maxUploadBytes * 1.34) + 1024 * 1024;
  const logger = cfg.requestLog
    ? {
        level: 'info',
        stream: cfg.requestLog,
        // Fastify's own request fields, with the target's api_key values redacted (guard.ts).
        serializers: {
          req: (r: { method: string; url: string; ip?: string }) => ({
            method: r.method,
            url: redactQueryKey(r.url),
            remoteAddress: r.ip,
          }),
        },
      }
    : false;
  const app = Fastify({ logger, bodyLimit: jsonLimit, requestTimeout: limits.requestTimeoutMs });
  const excess = limitConnections(app.server, limits.maxConnections);
  const jobs = new Jobs(cfg.runner, cfg.work, cfg.retentionMs ?? 3600_000);
  // First of all hooks, on matched and unmatched routes alike (guard.ts says why and in which order).
  app.addHook('onRequest', async (req, reply) => {
    const gateCfg = {
      apiKey: cfg.apiKey,
      allowedHosts: cfg.allowedHosts ?? [],
      allowedOrigins: cfg.allowedOrigins ?? [],
      maxConnections: limits.maxConnections,
    };
    const no = gate(gateCfg, excess, req);
    const cors = no && no.status === 403 ? undefined : corsHeaders(gateCfg, req);
    if (cors) reply.headers(cors);
    if (no?.status === 204) return reply.code(204).send();
    if (no) return refuse(reply, no);
  });
  await app.register(swagger, {
    openapi: {
      info: {
        title: 'Folio',
        description:
          "PDF and scanned images to Markdown, DoclingDocument JSON, DocTags, text and chunks: a drop-in for docling-serve 1.31.0's v1 API.",
        version: cfg.version,
      },
      components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } } },
    },
  });
  // preservePath: see the client's name as sent, so a name with path separators is refused rather than silently cut.
  await app.register(websocket, { options: { maxPayload: STATUS_WS_MAX_PAYLOAD } });
  // An upgrade request answered over HTTP (refused by the gate before @fastify/websocket's own
  // hook marked it) keeps its socket open: the plugin destroys only the ones it marked, and an open
  // one holds app.close() (and a connection slot) for ever. Upgraded sockets are hijacked and never
  // reach onResponse.
  app.addHook('onResponse', async (req) => {
    if (req.raw.headers.upgrade !== undefined) req.raw.socket?.destroy();
  });
  await app.register(multipart, {
    preservePath: true,
    limits: { fileSize: cfg.maxUploadBytes, files: maxFiles, fields: 200, fieldSize: 100_000, parts: maxFiles + 200 },
  });

  app.setErrorHandler((err: Error & { statusCode?: number; code?: string; validation?: unknown }, _req, reply) => {
    const status =
      err instanceof HttpError
        ? err.statusCode
        : err.validation
          ? 400
          : err.statusCode && err.statusCode >= 400 && err.statusCode < 500
            ? err.statusCode
            : 500;
    if (
      status >= 500 &&
      !(err instanceof HttpError && (err.statusCode === 503 || err.statusCode === 502 || err.statusCode === 504))
    ) {
      process.stderr.write(`folio serve: ${err.stack ?? err.message}\n`);
      return reply.code(500).send({
        detail: 'internal error; the service log has the details',
        error: { status: 500, code: 'internal', message: 'internal error; the service log has the details' },
      });
    }
    if (err instanceof HttpError && err.headers) reply.headers(err.headers);
    let message = err.message;
    if (err.code === 'FST_REQ_FILE_TOO_LARGE')
      message = `the upload is larger than this service's limit of ${cfg.maxUploadBytes} bytes`;
    if (err.code === 'FST_FILES_LIMIT')
      message = `more than ${maxFiles} files in one request: send them in several requests`;
    if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
      message = `content type not accepted here: send multipart/form-data with the files in a "files" field, or JSON to the /source routes`;
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      message = `the request body is larger than this service's limit of ${jsonLimit} bytes`;
    return reply.code(status).send({
      detail: err instanceof HttpError && err.detail ? err.detail : message,
      error: { status, code: err instanceof HttpError ? err.code : (err.code ?? 'bad_request'), message },
    });
  });
  app.setNotFoundHandler((req, reply) =>
    reply.code(404).send({
      detail: 'not found',
      error: { status: 404, code: 'not_found', message: `no route ${req.method} ${req.url.split('?')[0]}` },
    }),
  );

  let uploadsInFlight = 0;
  /** Refuses work the service cannot take now, before a byte of the body is stored. */
  const admit = async (req: FastifyRequest | undefined, bodyLimit: number) => {
    const length = Number(req?.headers['content-length']);
    if (Number.isFinite(length) && length > bodyLimit) {
      throw new HttpError(
        413,
        'too_large',
        `the request body (${length} bytes) is larger than this service's limit of ${cfg.maxUploadBytes} bytes per upload`,
      );
    }
    if (uploadsInFlight >= limits.maxUploadsInFlight) {
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
  };
  /**
   * JSON source bodies are admitted before a byte of them is read (security round 3, F6): the
   * route's body would otherwise be read and parsed whole (up to jsonLimit) before the upload
   * count, the queue and Content-Length were looked at. The slot is held until the sources are
   * stored (submitJson releases it) or the request ends, whichever comes first.
   */
  const jsonSlots = new WeakMap<FastifyRequest, () => void>();
  app.addHook('preParsing', async (req, reply, payload) => {
    const route = req.routeOptions.url ?? '';
    if (req.method !== 'POST' || !/\/source(\/async)?$/.test(route)) return payload;
    await admit(req, jsonLimit);
    uploadsInFlight++;
    let held = true;
    const release = () => {
      if (held) uploadsInFlight--;
      held = false;
    };
    jsonSlots.set(req, release);
    reply.raw.once('close', release);
    return payload;
  });
  /**
   * JSON bodies are read as a stream: file sources' base64 is decoded straight to files in the
   * work folder within the size limit (jsonSources.ts), the rest parsed as Fastify would. Files no
   * source claimed (the request failed first) are removed when the request ends.
   */
  const streamed = new WeakMap<FastifyRequest, Map<string, StreamedFile>>();
  const parseJsonText = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', async (req: FastifyRequest, payload: NodeJS.ReadableStream) => {
    let read: Awaited<ReturnType<typeof readJsonSources>>;
    try {
      read = await readJsonSources(payload as Readable, {
        maxBodyBytes: jsonLimit,
        maxFileBytes: cfg.maxUploadBytes,
        maxRestBytes: 2 * 1024 * 1024,
        newFile: () => cfg.work.newUpload(),
        remove: (p) => cfg.work.remove(p),
      });
    } catch (e) {
      if (e instanceof JsonBodyError) throw new HttpError(e.statusCode, e.code, e.message);
      throw e;
    }
    if (read.files.size > 0) streamed.set(req, read.files);
    return new Promise((resolve, reject) =>
      parseJsonText(req, read.text, (err, body) => (err ? reject(err) : resolve(body))),
    );
  });
  app.addHook('onResponse', async (req) => {
    for (const f of streamed.get(req)?.values() ?? []) cfg.work.remove(f.path);
  });
  const optionsOf = <T>(read: () => T): T => {
    try {
      return read();
    } catch (e) {
      if (e instanceof OptionsError) throw new HttpError(400, 'bad_option', e.message);
      throw e;
    }
  };

  /**
   * Streams the uploaded files into the work folder under generated names (mode 0600) and
   * returns them with the form's fields (a repeated field as a list). A refused, failed or
   * abandoned upload leaves no file behind: the files are removed when the request ends without
   * a complete body (the client went away).
   */
  const readUpload = async (req: FastifyRequest) => {
    if (!req.isMultipart())
      throw new HttpError(415, 'unsupported_media_type', 'send the files as multipart/form-data in a "files" field');
    await admit(req, cfg.maxUploadBytes + 1024 * 1024);
    uploadsInFlight++;
    const fields: Record<string, unknown> = {};
    const files: { path: string; name: string }[] = [];
    let total = 0;
    const removeAll = () => {
      for (const f of files) cfg.work.remove(f.path);
    };
    const onGone = () => {
      if (!req.raw.complete) removeAll();
    };
    req.raw.once('close', onGone);
    try {
      for await (const part of req.parts()) {
        if (part.type === 'file') {
          if (part.fieldname !== 'files' && part.fieldname !== 'file') {
            part.file.resume();
            throw new HttpError(
              400,
              'bad_field',
              `unexpected file field "${part.fieldname}": send the files in "files"`,
            );
          }
          let name: string;
          try {
            name = checkName(part.filename ?? '');
          } catch (e) {
            part.file.resume();
            throw e;
          }
          const path = cfg.work.newUpload();
          files.push({ path, name });
          await pipeline(part.file, createWriteStream(path, { flags: 'wx', mode: 0o600 }));
          if (part.file.truncated)
            throw new HttpError(
              413,
              'too_large',
              `${name} is larger than this service's limit of ${cfg.maxUploadBytes} bytes`,
            );
          total += statSync(path).size;
          if (total > cfg.maxUploadBytes)
            throw new HttpError(
              413,
              'too_large',
              `the files of this request together are larger than this service's limit of ${cfg.maxUploadBytes} bytes`,
            );
        } else {
          const prev = fields[part.fieldname];
          fields[part.fieldname] =
            prev === undefined ? part.value : Array.isArray(prev) ? [...prev, part.value] : [prev, part.value];
        }
      }
    } catch (e) {
      removeAll();
      throw e;
    } finally {
      uploadsInFlight--;
      req.raw.off('close', onGone);
    }
    if (files.length === 0) {
      throw new HttpError(400, 'missing_file', 'no file: send the PDF in a multipart field named "files"');
    }
    return { files, fields, removeAll };
  };

  /** Makes every stored file convertible; on the first refusal removes them all. */
  const readyAll = async (files: { path: string; name: string }[], opts: RequestOptions): Promise<StoredInput[]> => {
    const ready: StoredInput[] = [];
    try {
      for (const f of files) ready.push(await readyInput(cfg.work, f.path, f.name, true, opts.fromFormats));
    } catch (e) {
      for (const f of files) cfg.work.remove(f.path);
      throw e;
    }
    return ready;
  };

  const submitForm = async (
    req: FastifyRequest,
    type: Job['type'],
    chunker: ChunkingRequest['chunker'] = 'hybrid',
  ): Promise<Job> => {
    const u = await readUpload(req);
    let opts: RequestOptions;
    let chunking: ChunkingRequest | undefined;
    const warnings: string[] = [];
    try {
      if (type === 'convert') {
        opts = optionsOf(() => readOptions(pick(u.fields, '', CONVERT_FORM_EXTRAS), true));
        if (u.fields.callbacks !== undefined)
          warnings.push('callbacks: not supported by Folio; poll /v1/status/poll/{task_id}');
      } else {
        const rest = Object.keys(u.fields).filter(
          (k) =>
            !k.startsWith('convert_') &&
            !k.startsWith('chunking_') &&
            k !== 'include_converted_doc' &&
            k !== 'target_type',
        );
        if (rest.length > 0)
          throw new HttpError(
            400,
            'bad_option',
            `option "${rest[0]}" is not known here: chunk forms take convert_<option>, chunking_<option>, include_converted_doc and target_type`,
          );
        opts = optionsOf(() => readOptions(pick(u.fields, 'convert_'), true));
        chunking = optionsOf(() => readChunking(pick(u.fields, 'chunking_'), true, chunker));
      }
    } catch (e) {
      u.removeAll();
      throw e;
    }
    let zip: boolean;
    try {
      zip = isZipTarget(u.fields.target_type, type) || (type === 'convert' && opts.returnAsFile === true);
    } catch (e) {
      u.removeAll();
      throw e;
    }
    const inputs = await readyAll(u.files, opts);
    const include = u.fields.include_converted_doc;
    return jobs.submit(type, inputs, opts, toConvertOptions(opts.api, cfg.baseOptions), {
      zip,
      chunking,
      includeConvertedDoc: include === 'true' || include === true,
      warnings,
    });
  };

  /**
   * A PDF by local path (--allow-local). Every refusal about where the path leads — outside the
   * folder, through a link out of it, inside the service's own work folder, missing, not a file —
   * is the same 404 with the same words, so the answer never tells whether a path exists
   * (issue 21 item 9). The file is the user's: it is read, never removed.
   */
  const localInput = async (given: string, opts: RequestOptions): Promise<StoredInput> => {
    if (!cfg.allowLocalRoot)
      throw new HttpError(
        403,
        'local_paths_disabled',
        'this service does not read local paths: upload the file to /v1/convert/file, or start it with --allow-local <dir>',
      );
    const notHere = () =>
      new HttpError(404, 'not_found', `${given.slice(0, 300)} is not a file inside the folder this service may read`);
    const within = (root: string, p: string) => {
      const rel = relative(root, p);
      return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
    };
    const root = resolve(cfg.allowLocalRoot);
    const lexical = resolve(root, given);
    // Refused before the file system is asked, so a path outside costs the same as any other miss.
    if (!within(root, lexical)) throw notHere();
    let real: string;
    let realRoot: string;
    try {
      real = realpathSync(lexical);
      realRoot = realpathSync(root);
    } catch {
      throw notHere();
    }
    // Inside the work folder lie other clients' uploads and results: never readable by path.
    const realWork = realpathSync(cfg.work.root);
    if (!within(realRoot, real) || real === realWork || within(realWork, real)) throw notHere();
    if (!statSync(real).isFile()) throw notHere();
    return readyInput(cfg.work, real, basename(real), false, opts.fromFormats);
  };

  type SourceItem = { kind?: unknown; base64_string?: unknown; filename?: unknown; url?: unknown; headers?: unknown };
  /** The JSON body's sources (v1 `sources`, or the earlier `file_sources` / `http_sources`) stored in the work folder. */
  const readSources = async (
    b: Record<string, unknown>,
    opts: RequestOptions,
    files?: Map<string, StreamedFile>,
  ): Promise<StoredInput[]> => {
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
    const stored: { path: string; name: string }[] = [];
    let total = 0;
    try {
      for (const it of items) {
        if (typeof it !== 'object' || it === null)
          throw new HttpError(400, 'bad_request', 'each source must be an object');
        const path = cfg.work.newUpload();
        if (it.kind === 'file') {
          if (typeof it.base64_string !== 'string' || typeof it.filename !== 'string')
            throw new HttpError(400, 'bad_request', 'a file source needs "base64_string" and "filename"');
          const name = checkName(it.filename);
          const file = files?.get(it.base64_string);
          if (file) {
            // Already decoded to disk while the body arrived (the JSON parser above).
            files!.delete(it.base64_string);
            stored.push({ path: file.path, name });
            total += file.bytes;
            if (total > cfg.maxUploadBytes)
              throw new HttpError(
                413,
                'too_large',
                `${name} is larger than this service's limit of ${cfg.maxUploadBytes} bytes`,
              );
            continue;
          }
          if (!/^[A-Za-z0-9+/=\s_-]*$/.test(it.base64_string))
            throw new HttpError(400, 'bad_base64', `${name}: base64_string is not base64`);
          const bytes = Buffer.from(it.base64_string, 'base64');
          total += bytes.length;
          if (bytes.length > cfg.maxUploadBytes || total > cfg.maxUploadBytes)
            throw new HttpError(
              413,
              'too_large',
              `${name} is larger than this service's limit of ${cfg.maxUploadBytes} bytes`,
            );
          writeFileSync(path, bytes, { flag: 'wx', mode: 0o600 });
          stored.push({ path, name });
        } else if (it.kind === 'http') {
          if (typeof it.url !== 'string') throw new HttpError(400, 'bad_request', 'an http source needs "url"');
          const headers: Record<string, string> = {};
          if (it.headers && typeof it.headers === 'object')
            for (const [k, v] of Object.entries(it.headers)) if (typeof v === 'string') headers[k] = v;
          stored.push({ path, name: 'document' });
          try {
            const got = await fetchSource(it.url, headers, path, {
              enabled: cfg.httpSources?.enabled ?? false,
              allowPrivate: cfg.httpSources?.allowPrivate ?? false,
              maxBytes: cfg.maxUploadBytes - total,
              timeoutMs: cfg.httpSources?.timeoutMs ?? 60_000,
              connectForTest: cfg.httpSources?.connectForTest,
            });
            stored[stored.length - 1]!.name = got.name;
            total += statSync(path).size;
          } catch (e) {
            if (e instanceof SourceError) throw new HttpError(e.statusCode, 'bad_source', e.message);
            throw e;
          }
        } else
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
    const ready = await readyAll(stored, opts);
    if (typeof b.path === 'string') ready.push(await localInput(b.path, opts));
    return ready;
  };

  const submitJson = async (
    req: FastifyRequest,
    type: Job['type'],
    chunker: ChunkingRequest['chunker'] = 'hybrid',
  ): Promise<Job> => {
    const b = req.body;
    if (typeof b !== 'object' || b === null || Array.isArray(b))
      throw new HttpError(415, 'unsupported_media_type', 'send a JSON object (Content-Type: application/json)');
    const body = b as Record<string, unknown>;
    const known =
      type === 'convert'
        ? ['options', 'sources', 'file_sources', 'http_sources', 'target', 'callbacks', 'path']
        : [
            'convert_options',
            'chunking_options',
            'sources',
            'file_sources',
            'http_sources',
            'include_converted_doc',
            'target',
            'callbacks',
          ];
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
    if (Array.isArray(body.callbacks) && body.callbacks.length > 0)
      warnings.push('callbacks: not supported by Folio; poll /v1/status/poll/{task_id}');
    // Admitted (and counted) before its body was read: the preParsing hook above.
    let inputs: StoredInput[];
    try {
      inputs = await readSources(body, opts, streamed.get(req));
    } finally {
      jsonSlots.get(req)?.();
    }
    return jobs.submit(type, inputs, opts, toConvertOptions(opts.api, cfg.baseOptions), {
      zip,
      chunking,
      includeConvertedDoc: body.include_converted_doc === true,
      warnings,
    });
  };

  const sendResult = async (job: Job, reply: FastifyReply, sync: boolean) => {
    const res = await jobs.result(job);
    if (res.kind === 'zip') {
      const name =
        (job.docs.length === 1 ? job.docs[0]!.name.replace(/\.[^.]+$/, '').replace(/[^A-Za-z0-9._-]/g, '_') : '') ||
        'converted_docs';
      return reply
        .header('content-type', 'application/zip')
        .header('content-disposition', `attachment; filename="${name}.zip"`)
        .send(res.bytes);
    }
    if (sync && res.failed) {
      const status = HTTP_STATUS[res.failed.kind];
      return reply.code(status).send({
        ...res.body,
        detail: res.failed.message,
        error: { status, code: 'conversion_failed', message: res.failed.message },
      });
    }
    return reply.send(res.body);
  };
  /** Waits for the job; a client that goes away meanwhile cancels it (nobody is left to answer). */
  const finishSync = async (job: Job, reply: FastifyReply) => {
    const gone = new AbortController();
    const onClose = () => {
      if (reply.raw.writableEnded) return;
      gone.abort();
      void jobs.cancel(job);
    };
    reply.raw.once('close', onClose);
    try {
      await jobs.wait(job, gone.signal);
    } finally {
      reply.raw.off('close', onClose);
    }
    if (gone.signal.aborted) return reply;
    return sendResult(job, reply, true);
  };

  const sec = [{ apiKey: [] }];
  app.get('/health', { schema: { summary: 'Liveness' } }, async () => ({ status: 'ok' }));
  app.get('/ready', { schema: { summary: 'Readiness (the queue reachable when --redis)' } }, async (_req, reply) => {
    const ok = await cfg.runner.ready();
    return reply.code(ok ? 200 : 503).send({ status: ok ? 'ready' : 'not_ready', runner: cfg.runner.kind });
  });
  app.get('/version', { schema: { summary: 'Versions: Folio, and the docling-serve API it answers' } }, async () => ({
    folio: cfg.version,
    'docling-serve-api': '1.31.0 (v1)',
  })); // public: nothing about the machine
  const openapi = () => completeOpenApi(JSON.parse(JSON.stringify(app.swagger())) as OpenApiNode);
  app.get('/openapi.json', { schema: { hide: true } }, async () => openapi());
  app.get('/docs', { schema: { hide: true } }, async (_req, reply) =>
    reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', DOCS_CSP)
      .header('x-content-type-options', 'nosniff')
      .send(docsPage(openapi())),
  );

  const routes = [
    ['convert', 'hybrid', '/v1/convert', 'Convert'],
    ['chunk', 'hybrid', '/v1/chunk/hybrid', 'Convert and chunk (HybridChunker-shaped chunks)'],
    ['chunk', 'hierarchical', '/v1/chunk/hierarchical', 'Convert and chunk (HierarchicalChunker: one chunk per item)'],
  ] as const;
  for (const [type, chunker, base, what] of routes) {
    app.post(
      `${base}/file`,
      { schema: { summary: `${what}: uploaded files (multipart), waits for the result`, security: sec } },
      async (req, reply) => finishSync(await submitForm(req, type, chunker), reply),
    );
    app.post(
      `${base}/file/async`,
      { schema: { summary: `${what}: uploaded files (multipart); answers a task`, security: sec } },
      async (req) => jobs.status(await submitForm(req, type, chunker)),
    );
    app.post(
      `${base}/source`,
      {
        schema: {
          summary: `${what}: sources in a JSON body (base64 files, URLs${type === 'convert' ? ', a local path with --allow-local' : ''}), waits for the result`,
          security: sec,
        },
      },
      async (req, reply) => finishSync(await submitJson(req, type, chunker), reply),
    );
    app.post(
      `${base}/source/async`,
      { schema: { summary: `${what}: sources in a JSON body; answers a task`, security: sec } },
      async (req) => jobs.status(await submitJson(req, type, chunker)),
    );
  }

  const jobOr404 = async (id: string) => {
    // A malformed id names no task (and never reaches the store or the queue's keys).
    const j = TASK_ID.test(id) ? await jobs.find(id) : undefined;
    // docling-client tells a missing task by this very detail (TaskNotFoundError).
    if (!j)
      throw new HttpError(
        404,
        'unknown_task',
        `no task ${id.slice(0, 80)} (never submitted, or past its retention time)`,
        undefined,
        'Task not found.',
      );
    return j;
  };
  app.get<{ Params: { task_id: string }; Querystring: { wait?: number } }>(
    '/v1/status/poll/:task_id',
    {
      schema: {
        summary: 'Task status (docs done, pages done / total); ?wait=<s> waits up to that long for the end',
        params: TASK_PARAMS,
        querystring: { type: 'object', properties: { wait: { type: 'number', minimum: 0, maximum: 60 } } },
        security: sec,
      },
    },
    async (req) => {
      const job = await jobOr404(req.params.task_id);
      let s = await jobs.status(job);
      const until = Date.now() + (req.query.wait ?? 0) * 1000;
      while ((s.task_status === 'pending' || s.task_status === 'started') && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 100));
        s = await jobs.status(job);
      }
      return s;
    },
  );
  registerStatusWebSocket(app, jobs, { ...DEFAULT_STATUS_SOCKETS, ...cfg.statusSockets });
  app.get<{ Params: { task_id: string }; Querystring: { target?: 'json' | 'zip' } }>(
    '/v1/result/:task_id',
    {
      schema: {
        summary: 'The result, as the synchronous route answers it (?target=zip for a zip)',
        params: TASK_PARAMS,
        querystring: { type: 'object', properties: { target: { type: 'string', enum: ['json', 'zip'] } } },
        security: sec,
      },
    },
    async (req, reply) => {
      const job = await jobOr404(req.params.task_id);
      const s = await jobs.status(job);
      if (s.task_status === 'pending' || s.task_status === 'started')
        throw new HttpError(
          409,
          'not_finished',
          `task ${job.id} is ${s.task_status} (${s.task_meta.pages_done}/${s.task_meta.pages_total ?? '?'} pages): poll /v1/status/poll/${job.id}`,
        );
      return sendResult(
        req.query.target === 'zip' && job.type === 'convert' ? { ...job, zip: true } : job,
        reply,
        false,
      );
    },
  );
  app.post<{ Params: { task_id: string } }>(
    '/v1/tasks/:task_id/cancel',
    { schema: { summary: 'Cancel a task (pages already done are kept)', params: TASK_PARAMS, security: sec } },
    async (req) => {
      const job = await jobOr404(req.params.task_id);
      await jobs.cancel(job);
      return jobs.status(job);
    },
  );
  // docling-serve's batch route writes every result to a storage target (s3, presigned_url,
  // plugin_artifact); Folio has no storage, so it answers as docling-serve does without one.
  app.post(
    '/v1/convert/source/batch',
    { schema: { summary: 'Batch conversion into storage targets: refused (no artifact storage)', security: sec } },
    async (req) => {
      const body = (req.body ?? {}) as { target?: { kind?: unknown }; targets?: { kind?: unknown }[] };
      const kinds = [body.target?.kind, ...(Array.isArray(body.targets) ? body.targets.map((t) => t?.kind) : [])];
      if (kinds.includes('presigned_url')) throw new HttpError(422, 'presigned_url_unavailable', PRESIGNED_UNAVAILABLE);
      throw new HttpError(
        422,
        'no_storage',
        'batch conversion writes results to storage targets, which Folio does not have: use /v1/convert/source/async with target inbody or zip',
      );
    },
  );
  // docling-serve's housekeeping routes. Folio holds no converter to offload (the page workers
  // load their models once and keep them), so /v1/clear/converters has nothing to do.
  app.get(
    '/v1/clear/converters',
    { schema: { summary: 'Offload converters (Folio keeps none to offload; answers ok)', security: sec } },
    async () => ({ status: 'ok' }),
  );
  app.get<{ Querystring: { older_then?: number } }>(
    '/v1/clear/results',
    {
      schema: {
        summary: 'Forget the results of tasks that ended more than older_then seconds ago (default 3600)',
        querystring: { type: 'object', properties: { older_then: { type: 'number', minimum: 0 } } },
        security: sec,
      },
    },
    async (req) => {
      await jobs.clearResults((req.query.older_then ?? 3600) * 1000);
      return { status: 'ok' };
    },
  );
  return app;
}
