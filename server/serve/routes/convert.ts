/**
 * The routes that take documents: for each of convert, hybrid chunking and hierarchical chunking,
 * a multipart upload and a JSON body of sources, each waiting for the result or answering a task
 * at once (/async). Four routes per row of the table, each one line over requests.ts (reading the
 * request into a job) and replies.ts (waiting and answering).
 */
import type { FastifyRequest } from 'fastify';
import type { ChunkingRequest } from '../doclingOptions';
import type { Job } from '../jobs';
import { RequestReader } from '../requests';
import { finishSync } from '../replies';
import { SECURITY, type RoutePlugin } from './shared';

/** [job type, chunker, route prefix, summary]. */
const DOCUMENT_ROUTES = [
  ['convert', 'hybrid', '/v1/convert', 'Convert'],
  ['chunk', 'hybrid', '/v1/chunk/hybrid', 'Convert and chunk (HybridChunker-shaped chunks)'],
  ['chunk', 'hierarchical', '/v1/chunk/hierarchical', 'Convert and chunk (HierarchicalChunker: one chunk per item)'],
] as const;

type Submit = (req: FastifyRequest, type: Job['type'], chunker: ChunkingRequest['chunker']) => Promise<Job>;

export const convertRoutes: RoutePlugin = async (app, { ctx }) => {
  const { jobs } = ctx;
  const requests = new RequestReader(ctx);
  const form: Submit = (req, type, chunker) => requests.submitForm(req, type, chunker);
  const json: Submit = (req, type, chunker) => requests.submitJson(req, type, chunker);
  for (const [type, chunker, base, what] of DOCUMENT_ROUTES) {
    const local = type === 'convert' ? ', a local path with --allow-local' : '';
    const routes: [string, string, Submit, boolean][] = [
      ['/file', 'uploaded files (multipart), waits for the result', form, true],
      ['/file/async', 'uploaded files (multipart); answers a task', form, false],
      ['/source', `sources in a JSON body (base64 files, URLs${local}), waits for the result`, json, true],
      ['/source/async', 'sources in a JSON body; answers a task', json, false],
    ];
    for (const [path, summary, submit, sync] of routes)
      app.post(
        `${base}${path}`,
        { schema: { summary: `${what}: ${summary}`, security: SECURITY } },
        async (req, reply) =>
          sync
            ? finishSync(jobs, await submit(req, type, chunker), reply)
            : jobs.status(await submit(req, type, chunker)),
      );
  }
};
