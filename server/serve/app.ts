/**
 * `folio serve`: the HTTP API (Fastify), shaped like docling-serve's v1 API so its users find
 * their way: POST /v1/convert/file (multipart, synchronous), POST /v1/convert/file/async →
 * task id, GET /v1/status/poll/{task_id}, GET /v1/result/{task_id} (JSON, or ?target=zip),
 * POST /v1/tasks/{task_id}/cancel, /health, /ready and the OpenAPI document at /openapi.json.
 *
 * Every error is JSON `{error: {status, code, message}}`; 4xx for what the client can fix, a
 * bare 500 otherwise (details go to the log, never a stack trace to the client).
 */
import { createWriteStream, openSync, readSync, closeSync, statSync, realpathSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { relative, isAbsolute, basename, resolve } from 'node:path';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import swagger from '@fastify/swagger';
import type { ConvertOptions } from '../protocol';
import { TASK_ID } from '../queue/keys';
import { OPTIONS_SCHEMA, OptionsError, parseApiOptions, toConvertOptions } from './options';
import type { TaskResult, TaskRunner, TaskStatusView } from './tasks';
import type { WorkDir } from './workdir';
import { gate, limitConnections, refuse } from './guard';
import { resultZip } from './zip';

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

export const DEFAULT_LIMITS: ServiceLimits = { maxConnections: 64, maxUploadsInFlight: 16, maxQueued: 100, requestTimeoutMs: 300_000 };

export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

const TASK_PARAMS = { type: 'object', required: ['task_id'], properties: { task_id: { type: 'string', pattern: TASK_ID.source } } } as const;

/** `%PDF-` must appear in the first 1 KiB (the spec allows leading junk; real files start with it). */
function looksLikePdf(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(1024);
    const n = readSync(fd, buf, 0, 1024, 0);
    return buf.subarray(0, n).includes('%PDF-');
  } finally {
    closeSync(fd);
  }
}

/** A failed task's message → the HTTP status a synchronous caller gets. */
function failureStatus(message: string): number {
  if (/takes at most/.test(message)) return 413;
  if (/timed out/.test(message)) return 504;
  return 422;
}

function statusBody(s: TaskStatusView) {
  return {
    task_id: s.id,
    task_status: s.state,
    task_position: s.position ?? null,
    task_meta: { pages_done: s.pagesDone, pages_total: s.pagesTotal ?? null },
    error: s.error ?? null,
  };
}

function resultBody(id: string, r: TaskResult, s: TaskStatusView) {
  return {
    task_id: id,
    status: s.state === 'success' ? (r.summary.pageErrors.length > 0 ? 'partial_success' : 'success') : s.state,
    document: {
      filename: r.name,
      md_content: r.summary.markdown,
      doctags_content: r.summary.doctags,
      json_content: { pageCount: r.summary.pageCount, pagesDone: r.summary.pagesDone, engine: r.summary.engine, pages: r.pages },
      assets: [...r.assets.keys()],
    },
    errors: r.summary.pageErrors,
    warnings: r.summary.warnings,
    error: s.error ?? null,
  };
}

export async function buildServer(cfg: ServeConfig): Promise<FastifyInstance> {
  const limits: ServiceLimits = { ...DEFAULT_LIMITS, ...cfg.limits };
  const app = Fastify({ logger: false, bodyLimit: 1024 * 1024, requestTimeout: limits.requestTimeoutMs });
  const excess = limitConnections(app.server, limits.maxConnections);
  // First of all hooks, on matched and unmatched routes alike (guard.ts says why and in which order).
  app.addHook('onRequest', async (req, reply) => {
    const no = gate({ apiKey: cfg.apiKey, allowedHosts: cfg.allowedHosts ?? [], allowedOrigins: cfg.allowedOrigins ?? [], maxConnections: limits.maxConnections }, excess, req);
    if (no) return refuse(reply, no);
  });
  await app.register(swagger, {
    openapi: {
      info: { title: 'Folio', description: 'PDF to Markdown, DocTags and page JSON (docling-serve-shaped v1 API).', version: cfg.version },
      components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } } },
    },
  });
  // preservePath: see the client's name as sent, so a name with path separators is refused rather than silently cut.
  await app.register(multipart, { preservePath: true, limits: { fileSize: cfg.maxUploadBytes, files: 1, fields: 20, fieldSize: 10000, parts: 22 } });

  app.setErrorHandler((err: Error & { statusCode?: number; code?: string; validation?: unknown }, _req, reply) => {
    const status = err instanceof HttpError ? err.statusCode : err.validation ? 400 : err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status >= 500 && !(err instanceof HttpError && err.statusCode === 503)) {
      process.stderr.write(`folio serve: ${err.stack ?? err.message}\n`);
      return reply.code(500).send({ error: { status: 500, code: 'internal', message: 'internal error; the service log has the details' } });
    }
    if (err instanceof HttpError && err.headers) reply.headers(err.headers);
    let message = err.message;
    if (err.code === 'FST_REQ_FILE_TOO_LARGE') message = `the upload is larger than this service's limit of ${cfg.maxUploadBytes} bytes`;
    if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') message = `content type not accepted here: send multipart/form-data with the PDF in a "files" field`;
    return reply.code(status).send({ error: { status, code: err instanceof HttpError ? err.code : (err.code ?? 'bad_request'), message } });
  });
  app.setNotFoundHandler((req, reply) => reply.code(404).send({ error: { status: 404, code: 'not_found', message: `no route ${req.method} ${req.url.split('?')[0]}` } }));

  let uploadsInFlight = 0;
  /** Refuses work the service cannot take now, before a byte of the body is stored. */
  const admit = async (req?: FastifyRequest) => {
    const length = Number(req?.headers['content-length']);
    if (Number.isFinite(length) && length > cfg.maxUploadBytes + 1024 * 1024) {
      throw new HttpError(413, 'too_large', `the request body (${length} bytes) is larger than this service's limit of ${cfg.maxUploadBytes} bytes per upload`);
    }
    if (uploadsInFlight >= limits.maxUploadsInFlight) {
      throw new HttpError(429, 'too_many_uploads', `this service receives at most ${limits.maxUploadsInFlight} uploads at once: retry in a few seconds`, { 'retry-after': '5' });
    }
    const waiting = await cfg.runner.backlog();
    if (waiting >= limits.maxQueued) {
      throw new HttpError(503, 'queue_full', `${waiting} documents are already waiting (this service's limit is ${limits.maxQueued}): retry later`, { 'retry-after': '30' });
    }
  };

  /**
   * Streams the one uploaded PDF into the work folder under a generated name (mode 0600); returns
   * it with the form's options. A refused, failed or abandoned upload leaves no file behind: the
   * file is removed when the request ends without a complete body (the client went away).
   */
  const readUpload = async (req: FastifyRequest) => {
    if (!req.isMultipart()) throw new HttpError(415, 'unsupported_media_type', 'send the PDF as multipart/form-data in a "files" field');
    await admit(req);
    uploadsInFlight++;
    const fields: Record<string, unknown> = {};
    let upload: { path: string; name: string } | undefined;
    const onGone = () => {
      if (!req.raw.complete && upload) cfg.work.remove(upload.path);
    };
    req.raw.once('close', onGone);
    try {
      for await (const part of req.parts()) {
        if (part.type === 'file') {
          if (part.fieldname !== 'files' && part.fieldname !== 'file') {
            part.file.resume();
            throw new HttpError(400, 'bad_field', `unexpected file field "${part.fieldname}": send the PDF in "files"`);
          }
          const name = part.filename ?? '';
          if (!name || /[\\/]/.test(name) || name === '.' || name === '..' || name.length > 255 || /[\x00-\x1f]/.test(name)) {
            part.file.resume();
            throw new HttpError(400, 'bad_filename', `file name "${name.slice(0, 100)}" is not accepted: give a plain name without path separators`);
          }
          const path = cfg.work.newUpload();
          upload = { path, name };
          await pipeline(part.file, createWriteStream(path, { flags: 'wx', mode: 0o600 }));
          if (part.file.truncated) throw new HttpError(413, 'too_large', `${name} is larger than this service's limit of ${cfg.maxUploadBytes} bytes`);
        } else {
          fields[part.fieldname] = part.value;
        }
      }
    } catch (e) {
      if (upload) cfg.work.remove(upload.path);
      throw e;
    } finally {
      uploadsInFlight--;
      req.raw.off('close', onGone);
    }
    if (!upload) throw new HttpError(400, 'missing_file', 'no file: send the PDF in a multipart field named "files"');
    const size = statSync(upload.path).size;
    const fail = (status: number, code: string, message: string) => {
      cfg.work.remove(upload!.path);
      return new HttpError(status, code, message);
    };
    if (size === 0) throw fail(400, 'empty_file', `${upload.name} is empty (0 bytes): it is not a PDF`);
    if (!looksLikePdf(upload.path)) throw fail(415, 'not_a_pdf', `${upload.name} is not a PDF (no %PDF- header); Folio converts PDF files only`);
    let opts;
    try {
      opts = parseApiOptions(fields);
    } catch (e) {
      if (e instanceof OptionsError) throw fail(400, 'bad_option', e.message);
      throw e;
    }
    return { file: upload.path, name: upload.name, opts };
  };

  const submitUpload = async (req: FastifyRequest) => {
    const u = await readUpload(req);
    return cfg.runner.submit({ file: u.file, name: u.name, owned: true, options: toConvertOptions(u.opts, cfg.baseOptions), pages: u.opts.page_range, password: u.opts.password });
  };

  /**
   * A PDF by local path (--allow-local). Every refusal about where the path leads — outside the
   * folder, through a link out of it, inside the service's own work folder, missing, not a file —
   * is the same 404 with the same words, so the answer never tells whether a path exists
   * (issue 21 item 9). The file is the user's: it is read, never removed.
   */
  const submitLocal = async (body: unknown) => {
    if (!cfg.allowLocalRoot) throw new HttpError(403, 'local_paths_disabled', 'this service does not read local paths: upload the file to /v1/convert/file, or start it with --allow-local <dir>');
    const b = (body ?? {}) as { path?: unknown; options?: Record<string, unknown> };
    if (typeof b.path !== 'string' || !b.path) throw new HttpError(400, 'missing_path', 'give {"path": "<file.pdf>"} (relative to the allowed folder, or absolute inside it)');
    let opts;
    try {
      opts = parseApiOptions(b.options ?? {});
    } catch (e) {
      if (e instanceof OptionsError) throw new HttpError(400, 'bad_option', e.message);
      throw e;
    }
    const given = b.path;
    const notHere = () => new HttpError(404, 'not_found', `${given.slice(0, 300)} is not a file inside the folder this service may read`);
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
    await admit();
    if (!looksLikePdf(real)) throw new HttpError(415, 'not_a_pdf', `${basename(real)} is not a PDF (no %PDF- header)`);
    return cfg.runner.submit({ file: real, name: basename(real), owned: false, options: toConvertOptions(opts, cfg.baseOptions), pages: opts.page_range, password: opts.password });
  };

  const finishSync = async (id: string, reply: FastifyReply) => {
    const s = await cfg.runner.wait(id);
    const r = await cfg.runner.result(id);
    if (!s || !r) throw new HttpError(500, 'internal', 'task vanished');
    if (s.state === 'failure') {
      const status = failureStatus(s.error ?? '');
      return reply.code(status).send({ task_id: id, error: { status, code: 'conversion_failed', message: s.error ?? 'conversion failed' } });
    }
    return reply.send(resultBody(id, r, s));
  };

  const multipartDoc = 'multipart/form-data: the PDF in "files"; options as fields: ' + Object.keys(OPTIONS_SCHEMA.properties).join(', ');
  app.get('/health', { schema: { summary: 'Liveness' } }, async () => ({ status: 'ok' }));
  app.get('/ready', { schema: { summary: 'Readiness (the queue reachable when --redis)' } }, async (_req, reply) => {
    const ok = await cfg.runner.ready();
    return reply.code(ok ? 200 : 503).send({ status: ok ? 'ready' : 'not_ready', runner: cfg.runner.kind });
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  app.post('/v1/convert/file', { schema: { summary: 'Convert one uploaded PDF and wait for the result', description: multipartDoc, security: [{ apiKey: [] }] } }, async (req, reply) =>
    finishSync(await submitUpload(req), reply),
  );
  app.post('/v1/convert/file/async', { schema: { summary: 'Submit one uploaded PDF; answers a task id', description: multipartDoc, security: [{ apiKey: [] }] } }, async (req) => {
    const id = await submitUpload(req);
    return statusBody((await cfg.runner.status(id))!);
  });
  const sourceSchema = { type: 'object', required: ['path'], additionalProperties: false, properties: { path: { type: 'string', maxLength: 4096 }, options: OPTIONS_SCHEMA } } as const;
  app.post('/v1/convert/source', { schema: { summary: 'Convert a PDF by local path (only with --allow-local)', body: sourceSchema, security: [{ apiKey: [] }] } }, async (req, reply) =>
    finishSync(await submitLocal(req.body), reply),
  );
  app.post('/v1/convert/source/async', { schema: { summary: 'Submit a PDF by local path (only with --allow-local)', body: sourceSchema, security: [{ apiKey: [] }] } }, async (req) => {
    const id = await submitLocal(req.body);
    return statusBody((await cfg.runner.status(id))!);
  });

  const taskOr404 = async (id: string) => {
    const s = await cfg.runner.status(id);
    if (!s) throw new HttpError(404, 'unknown_task', `no task ${id} (never submitted, or past its retention time)`);
    return s;
  };
  app.get<{ Params: { task_id: string }; Querystring: { wait?: number } }>(
    '/v1/status/poll/:task_id',
    { schema: { summary: 'Task status with pages done / total; ?wait=<s> waits up to that long for the end', params: TASK_PARAMS, querystring: { type: 'object', properties: { wait: { type: 'number', minimum: 0, maximum: 60 } } }, security: [{ apiKey: [] }] } },
    async (req) => {
      let s = await taskOr404(req.params.task_id);
      const until = Date.now() + (req.query.wait ?? 0) * 1000;
      while ((s.state === 'pending' || s.state === 'started') && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 100));
        s = await taskOr404(req.params.task_id);
      }
      return statusBody(s);
    },
  );
  app.get<{ Params: { task_id: string }; Querystring: { target?: 'json' | 'zip' } }>(
    '/v1/result/:task_id',
    { schema: { summary: 'Result: JSON with Markdown, DocTags and page JSON, or ?target=zip (with assets)', params: TASK_PARAMS, querystring: { type: 'object', properties: { target: { type: 'string', enum: ['json', 'zip'] } } }, security: [{ apiKey: [] }] } },
    async (req, reply) => {
      const s = await taskOr404(req.params.task_id);
      if (s.state === 'pending' || s.state === 'started') throw new HttpError(409, 'not_finished', `task ${s.id} is ${s.state} (${s.pagesDone}/${s.pagesTotal ?? '?'} pages): poll /v1/status/poll/${s.id}`);
      const r = await cfg.runner.result(s.id);
      if (!r) throw new HttpError(404, 'unknown_task', `no result for task ${s.id}`);
      if (req.query.target === 'zip') {
        return reply
          .header('content-type', 'application/zip')
          .header('content-disposition', `attachment; filename="${r.name.replace(/\.pdf$/i, '').replace(/[^A-Za-z0-9._-]/g, '_')}.zip"`)
          .send(resultZip(r));
      }
      return resultBody(s.id, r, s);
    },
  );
  app.post<{ Params: { task_id: string } }>(
    '/v1/tasks/:task_id/cancel',
    { schema: { summary: 'Cancel a task (pages already done are kept)', params: TASK_PARAMS, security: [{ apiKey: [] }] } },
    async (req) => {
      await taskOr404(req.params.task_id);
      await cfg.runner.cancel(req.params.task_id);
      return statusBody(await taskOr404(req.params.task_id));
    },
  );
  return app;
}
