/**
 * The service's hooks and handlers on the root instance, in the pieces app.ts `buildServer`
 * installs in a fixed order: the gate (guard.ts) first of all, the socket of an upgrade request
 * answered over HTTP destroyed, JSON source bodies admitted before they are read and streamed to
 * the work folder as they arrive, and every error answered as
 * `{detail, error: {status, code, message}}` (`detail` as FastAPI answers): 4xx for what the
 * client can fix, a bare 500 otherwise (details go to the log, never a stack trace to the client).
 */
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { corsHeaders, gate, keyMatches, PUBLIC_ROUTES, redactQueryKey, refuse, type ConnectionGuard } from './guard';
import { HttpError } from './httpError';
import { JsonBodyError, readJsonSources } from './jsonSources';
import { admit } from './requests';
import type { ServeConfig, ServeContext } from './context';

/** Fastify's logger option: the request log as JSON lines, or none. */
export function requestLogger(cfg: ServeConfig) {
  if (!cfg.requestLog) return false;
  return {
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
  };
}

/** The gate as an onRequest hook: first of all hooks, on matched and unmatched routes alike (guard.ts says why and in which order). */
export function gateHook(ctx: ServeContext, conns: ConnectionGuard) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const gateCfg = ctx.gateConfig();
    const no = gate(gateCfg, conns, req);
    // Proved: passed with the key (a protected route passed, or the key sent to a public one).
    const route = req.routeOptions.url;
    const proven =
      !no && (route === undefined || !PUBLIC_ROUTES.has(route) || keyMatches(gateCfg.apiKey, req.headers['x-api-key']));
    conns.begin(req.raw, reply.raw, proven);
    const cors = no && no.status === 403 ? undefined : corsHeaders(gateCfg, req);
    if (cors) reply.headers(cors);
    if (no?.status === 204) return reply.code(204).send();
    if (no) return refuse(reply, no);
  };
}

/**
 * An upgrade request answered over HTTP (refused by the gate before @fastify/websocket's own
 * hook marked it) keeps its socket open: the plugin destroys only the ones it marked, and an open
 * one holds app.close() (and a connection slot) for ever. Upgraded sockets are hijacked and never
 * reach onResponse.
 */
export async function destroyUpgradeSocket(req: FastifyRequest): Promise<void> {
  if (req.raw.headers.upgrade !== undefined) req.raw.socket?.destroy();
}

/** @fastify/multipart's bounds. preservePath: see the client's name as sent, so a name with path separators is refused rather than silently cut. */
export function multipartOptions(ctx: ServeContext) {
  const { maxFiles } = ctx;
  return {
    preservePath: true,
    limits: {
      fileSize: ctx.cfg.maxUploadBytes,
      files: maxFiles,
      fields: 200,
      fieldSize: 100_000,
      parts: maxFiles + 200,
    },
  };
}

type ServeError = Error & { statusCode?: number; code?: string; validation?: unknown };

/** Fastify's own error codes, reworded to say what the client can do. */
function clientMessage(ctx: ServeContext, err: ServeError): string {
  if (err.code === 'FST_REQ_FILE_TOO_LARGE')
    return `the upload is larger than this service's limit of ${ctx.cfg.maxUploadBytes} bytes`;
  if (err.code === 'FST_FILES_LIMIT')
    return `more than ${ctx.maxFiles} files in one request: send them in several requests`;
  if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
    return `content type not accepted here: send multipart/form-data with the files in a "files" field, or JSON to the /source routes`;
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return `the request body is larger than this service's limit of ${ctx.jsonLimit} bytes`;
  return err.message;
}

/** Every error as JSON; a 5xx that is not the service saying "busy" or "upstream" is a bare 500. */
export function errorHandler(ctx: ServeContext) {
  return (err: ServeError, req: FastifyRequest, reply: FastifyReply) => {
    // The client went away mid-body: nothing to answer and nothing wrong with the service (was
    // logged as an internal error with its stack, security round 4, O7).
    if ((err.message === 'aborted' || err.code === 'ECONNRESET') && (req.raw.aborted || req.raw.socket?.destroyed))
      return reply.code(400).send({
        detail: 'the client closed the request',
        error: { status: 400, code: 'aborted', message: 'the client closed the request' },
      });
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
    const message = clientMessage(ctx, err);
    return reply.code(status).send({
      detail: err instanceof HttpError && err.detail ? err.detail : message,
      error: { status, code: err instanceof HttpError ? err.code : (err.code ?? 'bad_request'), message },
    });
  };
}

export function notFound(req: FastifyRequest, reply: FastifyReply) {
  return reply.code(404).send({
    detail: 'not found',
    error: { status: 404, code: 'not_found', message: `no route ${req.method} ${req.url.split('?')[0]}` },
  });
}

/**
 * JSON source bodies are admitted before a byte of them is read (security round 3, F6): the
 * route's body would otherwise be read and parsed whole (up to jsonLimit) before the upload
 * count, the queue and Content-Length were looked at. The slot is held until the sources are
 * stored (RequestReader.submitJson releases it) or the request ends, whichever comes first.
 */
export function admitJsonBodies(app: FastifyInstance, ctx: ServeContext): void {
  app.addHook('preParsing', async (req, reply, payload) => {
    const route = req.routeOptions.url ?? '';
    if (req.method !== 'POST' || !/\/source(\/async)?$/.test(route)) return payload;
    await admit(ctx, req, ctx.jsonLimit);
    ctx.uploadsInFlight++;
    let held = true;
    const release = () => {
      if (held) ctx.uploadsInFlight--;
      held = false;
    };
    ctx.jsonSlots.set(req, release);
    reply.raw.once('close', release);
    return payload;
  });
}

/**
 * JSON bodies are read as a stream: file sources' base64 is decoded straight to files in the
 * work folder within the size limit (jsonSources.ts), the rest parsed as Fastify would. Files no
 * source claimed (the request failed first) are removed when the request ends.
 */
export function streamJsonBodies(app: FastifyInstance, ctx: ServeContext): void {
  const { cfg } = ctx;
  const parseJsonText = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', async (req: FastifyRequest, payload: NodeJS.ReadableStream) => {
    let read: Awaited<ReturnType<typeof readJsonSources>>;
    try {
      read = await readJsonSources(payload as Readable, {
        maxBodyBytes: ctx.jsonLimit,
        maxFileBytes: cfg.maxUploadBytes,
        maxRestBytes: 2 * 1024 * 1024,
        maxFiles: ctx.maxFiles,
        newFile: () => cfg.work.newUpload(),
        remove: (p) => cfg.work.remove(p),
      });
    } catch (e) {
      if (e instanceof JsonBodyError) throw new HttpError(e.statusCode, e.code, e.message);
      throw e;
    }
    if (read.files.size > 0) ctx.streamed.set(req, read.files);
    return new Promise((resolve, reject) =>
      parseJsonText(req, read.text, (err, body) => (err ? reject(err) : resolve(body))),
    );
  });
  app.addHook('onResponse', async (req) => {
    for (const f of ctx.streamed.get(req)?.values() ?? []) cfg.work.remove(f.path);
  });
}
