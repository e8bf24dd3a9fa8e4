/**
 * Answering with a task: finding it by the id in the URL (404 as docling-serve answers), waiting
 * for it while the client stays, and sending its result as the synchronous routes and
 * /v1/result do (JSON, or a zip; a failed synchronous conversion with its error's status).
 */
import type { FastifyReply } from 'fastify';
import { HTTP_STATUS } from './httpStatus';
import { TASK_ID } from '../queue/keys';
import { HttpError } from './httpError';
import type { Job, Jobs } from './jobs';

/** The task named in a URL, or docling-serve's 404. */
export async function jobOr404(jobs: Jobs, id: string): Promise<Job> {
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
}

/** The task's result: a zip as an attachment, or JSON (with the failure's status when `sync`). */
export async function sendResult(jobs: Jobs, job: Job, reply: FastifyReply, sync: boolean): Promise<FastifyReply> {
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
}

/** Waits for the job; a client that goes away meanwhile cancels it (nobody is left to answer). */
export async function finishSync(jobs: Jobs, job: Job, reply: FastifyReply): Promise<FastifyReply> {
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
  return sendResult(jobs, job, reply, true);
}
