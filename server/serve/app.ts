/**
 * `folio serve`: the HTTP API (Fastify), a drop-in for docling-serve's v1 API (matched against
 * docling-serve 1.31.0; docs/serve.md). `buildServer` puts the hooks on the root (hooks.ts: the
 * gate of guard.ts first, error answers, JSON bodies) and registers one plugin per route family:
 *
 * - routes/meta.ts: /health, /ready, /version, /openapi.json and /docs;
 * - routes/convert.ts: POST /v1/convert/{file,source}[/async] and
 *   /v1/chunk/{hybrid,hierarchical}/{file,source}[/async], over requests.ts;
 * - routes/tasks.ts: GET /v1/status/poll/{task_id}, the WebSocket /v1/status/ws/{task_id}
 *   (statusWebSocket.ts), GET /v1/result/{task_id}, POST /v1/tasks/{task_id}/cancel;
 * - routes/doclingCompat.ts: /v1/convert/source/batch and /v1/clear/{converters,results}.
 *
 * They share one ServeContext (context.ts). docling-serve's option names are read by
 * doclingOptions.ts, inputs made ready by inputs.ts and sources.ts, answers shaped by
 * doclingResult.ts over jobs.ts.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import multipart from '@fastify/multipart';
import swagger from '@fastify/swagger';
import websocket from '@fastify/websocket';
import { ConnectionGuard } from './guard';
import { STATUS_WS_MAX_PAYLOAD } from './statusWebSocket';
import { HttpError } from './httpError';
import { ServeContext, type ServeConfig } from './context';
import {
  admitJsonBodies,
  destroyUpgradeSocket,
  errorHandler,
  gateHook,
  multipartOptions,
  notFound,
  requestLogger,
  streamJsonBodies,
} from './hooks';
import type { RoutePlugin } from './routes/shared';
import { metaRoutes } from './routes/meta';
import { convertRoutes } from './routes/convert';
import { taskRoutes } from './routes/tasks';
import { doclingCompatRoutes } from './routes/doclingCompat';

export { HttpError };
export { DEFAULT_LIMITS, type ServeConfig, type ServiceLimits } from './context';

/** The route families, registered in this order (the OpenAPI document lists the routes so). */
const ROUTES: RoutePlugin[] = [metaRoutes, convertRoutes, taskRoutes, doclingCompatRoutes];

function swaggerOptions(version: string) {
  return {
    openapi: {
      info: {
        title: 'Folio',
        description:
          "PDF and scanned images to Markdown, DoclingDocument JSON, DocTags, text and chunks: a drop-in for docling-serve 1.31.0's v1 API.",
        version,
      },
      components: { securitySchemes: { apiKey: { type: 'apiKey' as const, in: 'header', name: 'X-Api-Key' } } },
    },
  };
}

/**
 * The service. The hooks go on the root instance before any route (each route plugin inherits
 * them): the gate first of all, then the plugins they need, then the error answers and the JSON
 * body handling; the routes come last, one plugin per family, all sharing one ServeContext.
 */
export async function buildServer(cfg: ServeConfig): Promise<FastifyInstance> {
  const ctx = new ServeContext(cfg);
  const app = Fastify({
    logger: requestLogger(cfg),
    bodyLimit: ctx.jsonLimit,
    requestTimeout: ctx.limits.requestTimeoutMs,
  });
  const conns = new ConnectionGuard(app.server, ctx.limits.maxConnections, {
    admitMs: ctx.limits.admitTimeoutMs,
    idleMs: ctx.limits.idleTimeoutMs,
  });
  app.addHook('onRequest', gateHook(ctx, conns));
  await app.register(swagger, swaggerOptions(cfg.version));
  await app.register(websocket, { options: { maxPayload: STATUS_WS_MAX_PAYLOAD } });
  app.addHook('onResponse', destroyUpgradeSocket);
  await app.register(multipart, multipartOptions(ctx));
  app.setErrorHandler(errorHandler(ctx));
  app.setNotFoundHandler(notFound);
  admitJsonBodies(app, ctx);
  streamJsonBodies(app, ctx);
  for (const routes of ROUTES) await app.register(routes, { ctx });
  return app;
}
