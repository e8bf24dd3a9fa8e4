/** `folio worker --redis redis://…`: runs until SIGINT/SIGTERM, then finishes its current jobs' bookkeeping and exits. */
import type { ConvertOptions } from '../../common/protocol';
import { remoteVlmOption } from '../vlm/remoteOptions';
import { UsageError } from '../errors';
import { ENGINE_FLAGS, LIMIT_FLAGS, QUEUE_FLAGS, VLM_FLAGS } from '../flags/groups';
import { parseFlags, refine, usageText, wantsHelp, wholeNumberFlag } from '../flags/table';
import { startWorker } from './worker';
import { DEFAULT_LIMITS } from '../worker/limits';

/** `folio worker`'s flags: its own, then the groups it shares with convert and serve (server/flags/groups.ts). */
export const WORKER_FLAGS = {
  redis: refine(QUEUE_FLAGS.redis, { default: undefined, help: ['Redis holding the queue (required)'] }),
  threads: { ...wholeNumberFlag('<n>', 1, 64, ['page-worker threads (default 2)']), default: 2 },
  concurrency: { ...wholeNumberFlag('<n>', 1, 64, ['jobs this process runs at once (default 1)']), default: 1 },
  'lock-ms': {
    ...wholeNumberFlag('<ms>', 1000, 3600000, [
      "job lock; a dead worker's job is taken over after about this long (default 30000)",
    ]),
    default: 30000,
  },
  'result-ttl': {
    ...wholeNumberFlag('<s>', 60, 30 * 86400, ['seconds results are kept in Redis (default 86400)']),
    default: 86400,
  },
  'max-pages': refine(LIMIT_FLAGS['max-pages'], {
    default: DEFAULT_LIMITS.maxPages,
    help: [
      `most pages converted of one document (default ${DEFAULT_LIMITS.maxPages}); a task's own`,
      'limit can lower it, never raise it',
    ],
  }),
  models: refine(ENGINE_FLAGS.models, {
    default: undefined,
    help: ["model folder for jobs with engine vlm (default: folio models' folder)"],
  }),
  ...VLM_FLAGS,
};

export const WORKER_USAGE = usageText(
  'usage: folio worker --redis <redis://host:6379> [options]',
  WORKER_FLAGS,
  `  Redis password: in the URL (redis://:PASSWORD@host:6379) or, kept out of the process list,
  in FOLIO_REDIS_PASSWORD. Folders, models and the remote VLM are this worker's own settings:
  a job that names any of them is refused (SECURITY.md, "Queue worker").`,
);

export interface WorkerArgs {
  redis: string;
  threads: number;
  concurrency: number;
  lockMs: number;
  ttlSeconds: number;
  maxPages: number;
  /** The places jobs may not name: the worker's own model folder and remote VLM. */
  own: Pick<ConvertOptions, 'modelsDir' | 'remoteVlm'>;
}

export function parseWorkerArgs(argv: string[]): WorkerArgs {
  const { values: v } = parseFlags(WORKER_FLAGS, argv, { positionals: false });
  const own: WorkerArgs['own'] = {};
  if (v.models !== undefined) own.modelsDir = v.models;
  Object.assign(own, remoteVlmOption({ vlmUrl: v['vlm-url'], vlmModel: v['vlm-model'], vlmApiKey: v['vlm-api-key'] }));
  if (!v.redis) throw new UsageError('--redis <url> is required (e.g. redis://127.0.0.1:6379)');
  return {
    redis: v.redis,
    threads: v.threads,
    concurrency: v.concurrency,
    lockMs: v['lock-ms'],
    ttlSeconds: v['result-ttl'],
    maxPages: v['max-pages'],
    own,
  };
}

export async function workerCommand(argv: string[]): Promise<number> {
  if (wantsHelp(argv)) {
    process.stdout.write(WORKER_USAGE + '\n');
    return 0;
  }
  const opts = parseWorkerArgs(argv);
  const log = (m: string) => process.stderr.write(`folio worker: ${m}\n`);
  // The handlers first: a stop asked for while starting (or right after "ready") is not lost.
  const stopAsked = new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  log(`starting (pid ${process.pid}, ${opts.threads} thread(s), ${opts.concurrency} job(s) at once)`);
  // Starting waits for Redis (forever, retrying): a stop asked for meanwhile ends it, no job was taken.
  const w = await Promise.race([startWorker({ ...opts, log }), stopAsked.then(() => undefined)]);
  if (!w) {
    log('stopped before it was ready');
    process.exit(0);
  }
  log('ready: waiting for jobs');
  await stopAsked;
  log('stopping');
  // A second signal stops at once; the close itself is bounded (worker.ts), and once it is done
  // nothing may keep the process alive (a reconnect timer, a BullMQ call still waiting on Redis).
  const now = () => process.exit(0);
  process.once('SIGINT', now);
  process.once('SIGTERM', now);
  await w.close();
  setTimeout(now, 1000).unref();
  return 0;
}
