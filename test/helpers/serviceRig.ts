/**
 * A real `folio serve` for the service's tests, on 127.0.0.1 with an ephemeral port: in this
 * process over a page-worker pool (the default runner), or over a real Redis (`serve --redis`)
 * with a real `folio worker` process when a task must end. One place, so the security tests of
 * each round start the service the same way the product does (server/serve/app.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { repoRoot } from './corpus';
import type { PageWorkerPool } from '../../server/worker/pool';
import { buildServer, type ServiceLimits } from '../../server/serve/app';
import { InProcessRunner, QueueRunner } from '../../server/serve/tasks';
import { WorkDir } from '../../server/serve/workdir';

export interface TestService<R = InProcessRunner | QueueRunner> {
  app: FastifyInstance;
  runner: R;
  work: WorkDir;
  /** `http://127.0.0.1:PORT`. */
  url: string;
  port: number;
  /** Closes the server, then its runner. */
  close(): Promise<void>;
}

interface Common {
  apiKey?: string;
  limits?: Partial<ServiceLimits>;
  maxUploadBytes?: number;
}

async function listen<R extends { close(): Promise<unknown> }>(
  app: FastifyInstance,
  work: WorkDir,
  runner: R,
): Promise<TestService<R>> {
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    app,
    runner,
    work,
    url,
    port: (app.server.address() as { port: number }).port,
    close: async () => {
      await app.close();
      await runner.close();
    },
  };
}

/** The in-process service over `pool`, its work folder a new one under `dir`. */
export async function startInProcessService(
  pool: PageWorkerPool,
  dir: string,
  o: Common = {},
): Promise<TestService<InProcessRunner>> {
  const work = new WorkDir(mkdtempSync(join(dir, 'work-')));
  const runner = new InProcessRunner(pool, work, { maxPages: 40, timeoutMs: 60_000, retentionMs: 60_000 }, 1);
  const app = await buildServer({
    runner,
    work,
    baseOptions: {},
    ...(o.apiKey ? { apiKey: o.apiKey } : {}),
    maxUploadBytes: o.maxUploadBytes ?? 4 * 1024 * 1024,
    version: 'test',
    ...(o.limits ? { limits: o.limits } : {}),
  });
  return listen(app, work, runner);
}

/** `serve --redis` over the Redis at `redisUrl`; tasks wait until a worker (startQueueWorker) takes them. */
export async function startQueueService(
  redisUrl: string,
  dir: string,
  o: Common = {},
): Promise<TestService<QueueRunner>> {
  const work = new WorkDir(join(dir, 'work'));
  const runner = new QueueRunner(redisUrl, work, { maxPages: 100, timeoutMs: 0, retentionMs: 3600_000 }, 4);
  const app = await buildServer({
    runner,
    work,
    baseOptions: { engine: 'pipeline' },
    ...(o.apiKey ? { apiKey: o.apiKey } : {}),
    maxUploadBytes: o.maxUploadBytes ?? 10 * 1024 * 1024,
    version: 'test',
    ...(o.limits ? { limits: o.limits } : {}),
  });
  return listen(app, work, runner);
}

/** A real `folio worker` (one page thread) on the queue, its cache under `dir`. */
export function startQueueWorker(redisUrl: string, dir: string): ChildProcess {
  return spawn(
    process.execPath,
    [join(repoRoot(), 'dist', 'cli.js'), 'worker', '--redis', redisUrl, '--threads', '1'],
    { stdio: 'ignore', env: { ...process.env, FOLIO_CACHE_DIR: join(dir, 'cache') } },
  );
}

/** Ends a worker started by startQueueWorker, if it still runs. */
export function stopQueueWorker(worker: ChildProcess | undefined): void {
  if (worker && worker.exitCode === null) process.kill(worker.pid!, 'SIGKILL');
}
