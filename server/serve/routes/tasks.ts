/**
 * The routes about a submitted task: its status (polled, or pushed over the WebSocket of
 * statusWebSocket.ts), its result and its cancellation. An unknown or malformed task id is
 * docling-serve's 404 "Task not found." (replies.ts jobOr404).
 */
import { HttpError } from '../httpError';
import { jobOr404, sendResult } from '../replies';
import { DEFAULT_STATUS_SOCKETS, registerStatusWebSocket } from '../statusWebSocket';
import { SECURITY, TASK_PARAMS, type RoutePlugin } from './shared';

export const taskRoutes: RoutePlugin = async (app, { ctx }) => {
  const { jobs } = ctx;
  app.get<{ Params: { task_id: string }; Querystring: { wait?: number } }>(
    '/v1/status/poll/:task_id',
    {
      schema: {
        summary: 'Task status (docs done, pages done / total); ?wait=<s> waits up to that long for the end',
        params: TASK_PARAMS,
        querystring: { type: 'object', properties: { wait: { type: 'number', minimum: 0, maximum: 60 } } },
        security: SECURITY,
      },
    },
    async (req) => {
      const job = await jobOr404(jobs, req.params.task_id);
      let s = await jobs.status(job);
      const until = Date.now() + (req.query.wait ?? 0) * 1000;
      while ((s.task_status === 'pending' || s.task_status === 'started') && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 100));
        s = await jobs.status(job);
      }
      return s;
    },
  );
  registerStatusWebSocket(app, jobs, { ...DEFAULT_STATUS_SOCKETS, ...ctx.cfg.statusSockets });
  app.get<{ Params: { task_id: string }; Querystring: { target?: 'json' | 'zip' } }>(
    '/v1/result/:task_id',
    {
      schema: {
        summary: 'The result, as the synchronous route answers it (?target=zip for a zip)',
        params: TASK_PARAMS,
        querystring: { type: 'object', properties: { target: { type: 'string', enum: ['json', 'zip'] } } },
        security: SECURITY,
      },
    },
    async (req, reply) => {
      const job = await jobOr404(jobs, req.params.task_id);
      const s = await jobs.status(job);
      if (s.task_status === 'pending' || s.task_status === 'started')
        throw new HttpError(
          409,
          'not_finished',
          `task ${job.id} is ${s.task_status} (${s.task_meta.pages_done}/${s.task_meta.pages_total ?? '?'} pages): poll /v1/status/poll/${job.id}`,
        );
      const zip = req.query.target === 'zip' && job.type === 'convert';
      return sendResult(jobs, zip ? { ...job, zip: true } : job, reply, false);
    },
  );
  app.post<{ Params: { task_id: string } }>(
    '/v1/tasks/:task_id/cancel',
    { schema: { summary: 'Cancel a task (pages already done are kept)', params: TASK_PARAMS, security: SECURITY } },
    async (req) => {
      const job = await jobOr404(jobs, req.params.task_id);
      await jobs.cancel(job);
      return jobs.status(job);
    },
  );
};
