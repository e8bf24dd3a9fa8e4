/**
 * What the route plugins share: their type (a Fastify plugin given the service's context), the
 * OpenAPI security requirement of the routes behind the API key, and the task id parameter.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ServeContext } from '../context';

export interface RouteOptions {
  ctx: ServeContext;
}

/** A family of routes, registered by app.ts `buildServer` with the service's context. */
export type RoutePlugin = FastifyPluginAsync<RouteOptions>;

/** OpenAPI: the route takes the API key (guard.ts enforces it; this only describes it). */
export const SECURITY = [{ apiKey: [] }];

export const TASK_PARAMS = {
  type: 'object',
  required: ['task_id'],
  // No pattern here: a malformed id is an unknown task, 404 as docling-serve answers (jobOr404).
  properties: { task_id: { type: 'string', maxLength: 200 } },
} as const;
