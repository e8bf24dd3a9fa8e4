/**
 * The public routes about the service itself: /health, /ready, /version, /openapi.json and the
 * /docs page (openapi.ts). The gate lets them through without the API key (guard.ts
 * PUBLIC_ROUTES); none of them says anything about the machine.
 */
import { completeOpenApi, docsPage, DOCS_CSP, type OpenApiNode } from '../openapi';
import type { RoutePlugin } from './shared';

export const metaRoutes: RoutePlugin = async (app, { ctx }) => {
  const { cfg } = ctx;
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
};
