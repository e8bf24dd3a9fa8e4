/**
 * docling-serve's routes that Folio answers without doing their work, as docling-serve itself
 * answers without the part they need: the batch route (it writes to storage targets; Folio has no
 * artifact storage) and the housekeeping routes (Folio holds no converter to offload; results are
 * forgotten on request).
 */
import { HttpError } from '../httpError';
import { PRESIGNED_UNAVAILABLE } from '../doclingTargets';
import { SECURITY, type RoutePlugin } from './shared';

export const doclingCompatRoutes: RoutePlugin = async (app, { ctx }) => {
  // docling-serve's batch route writes every result to a storage target (s3, presigned_url,
  // plugin_artifact); Folio has no storage, so it answers as docling-serve does without one.
  app.post(
    '/v1/convert/source/batch',
    { schema: { summary: 'Batch conversion into storage targets: refused (no artifact storage)', security: SECURITY } },
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
  // Folio holds no converter to offload (the page workers load their models once and keep
  // them), so /v1/clear/converters has nothing to do.
  app.get(
    '/v1/clear/converters',
    { schema: { summary: 'Offload converters (Folio keeps none to offload; answers ok)', security: SECURITY } },
    async () => ({ status: 'ok' }),
  );
  app.get<{ Querystring: { older_then?: number } }>(
    '/v1/clear/results',
    {
      // Clearing is a GET by docling-serve's design; Fastify's automatic HEAD route would run it
      // too (security round 4, O3): a HEAD clears nothing.
      exposeHeadRoute: false,
      schema: {
        summary: 'Forget the results of tasks that ended more than older_then seconds ago (default 3600)',
        querystring: { type: 'object', properties: { older_then: { type: 'number', minimum: 0 } } },
        security: SECURITY,
      },
    },
    async (req) => {
      await ctx.jobs.clearResults((req.query.older_then ?? 3600) * 1000);
      return { status: 'ok' };
    },
  );
};
