/** `folio worker --redis redis://…`: runs until SIGINT/SIGTERM, then finishes its current jobs' bookkeeping and exits. */
import { resolve } from 'node:path';
import type { ConvertOptions } from '../../common/protocol';
import { remoteVlmOption } from '../vlm/remoteOptions';
import { remoteUrlProblem } from '../util/loopback';
import { checkRedisUrl } from './connection';
import { startWorker } from './worker';
import { DEFAULT_LIMITS, LIMIT_RANGES } from '../worker/limits';

export const WORKER_USAGE = `usage: folio worker --redis <redis://host:6379> [options]

      --redis <url>       Redis holding the queue (required)
      --threads <n>       page-worker threads (default 2)
      --concurrency <n>   jobs this process runs at once (default 1)
      --lock-ms <ms>      job lock; a dead worker's job is taken over after about this long (default 30000)
      --result-ttl <s>    seconds results are kept in Redis (default 86400)
      --max-pages <n>     most pages converted of one document (default 10000); a task's own
                          limit can lower it, never raise it
      --models <dir>      model folder for jobs with engine vlm (default: folio models' folder)
      --vlm-url <url>     remote VLM for jobs with engine vlm (OpenAI-compatible base URL);
      --vlm-model <name>  --vlm-api-key <k> (or FOLIO_VLM_API_KEY) as for folio convert
  Redis password: in the URL (redis://:PASSWORD@host:6379) or, kept out of the process list,
  in FOLIO_REDIS_PASSWORD. Folders, models and the remote VLM are this worker's own settings:
  a job that names any of them is refused (SECURITY.md, "Queue worker").`;

export class WorkerUsageError extends Error {}

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
  const a: WorkerArgs = {
    redis: '',
    threads: 2,
    concurrency: 1,
    lockMs: 30000,
    ttlSeconds: 86400,
    maxPages: DEFAULT_LIMITS.maxPages,
    own: {},
  };
  const vlm: { vlmUrl?: string; vlmModel?: string; vlmApiKey?: string } = {};
  const num = (flag: string, v: string | undefined, min: number, max: number): number => {
    const n = Number(v);
    if (v === undefined || !Number.isInteger(n) || n < min || n > max)
      throw new WorkerUsageError(`${flag} takes a whole number from ${min} to ${max}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] =
      argv[i].startsWith('--') && argv[i].includes('=')
        ? [argv[i].slice(0, argv[i].indexOf('=')), argv[i].slice(argv[i].indexOf('=') + 1)]
        : [argv[i], undefined];
    const value = () => inline ?? argv[++i];
    switch (flag) {
      case '--redis':
        a.redis = value() ?? '';
        break;
      case '--threads':
        a.threads = num(flag, value(), 1, 64);
        break;
      case '--concurrency':
        a.concurrency = num(flag, value(), 1, 64);
        break;
      case '--lock-ms':
        a.lockMs = num(flag, value(), 1000, 3600000);
        break;
      case '--result-ttl':
        a.ttlSeconds = num(flag, value(), 60, 30 * 86400);
        break;
      case '--max-pages':
        a.maxPages = num(flag, value(), LIMIT_RANGES.maxPages.min, LIMIT_RANGES.maxPages.max);
        break;
      case '--models': {
        const d = value();
        if (!d) throw new WorkerUsageError('--models needs a folder');
        a.own.modelsDir = resolve(d);
        break;
      }
      case '--vlm-url':
        vlm.vlmUrl = value();
        if (!vlm.vlmUrl || !/^https?:\/\//.test(vlm.vlmUrl))
          throw new WorkerUsageError(
            `--vlm-url must be an http(s) URL such as https://host:8000/v1, not "${vlm.vlmUrl ?? ''}"`,
          );
        if (remoteUrlProblem(vlm.vlmUrl))
          throw new WorkerUsageError(`--vlm-url ${vlm.vlmUrl} is refused: ${remoteUrlProblem(vlm.vlmUrl)}`);
        break;
      case '--vlm-model':
        vlm.vlmModel = value();
        break;
      case '--vlm-api-key':
        vlm.vlmApiKey = value();
        break;
      default:
        throw new WorkerUsageError(`unknown option ${argv[i]}`);
    }
  }
  Object.assign(a.own, remoteVlmOption(vlm));
  if (!a.redis) throw new WorkerUsageError('--redis <url> is required (e.g. redis://127.0.0.1:6379)');
  try {
    checkRedisUrl(a.redis);
  } catch (e) {
    throw new WorkerUsageError((e as Error).message);
  }
  return a;
}

export async function workerCommand(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
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
