/** `folio serve`: parses its flags, builds the runner (in-process, or the queue with --redis) and listens. */
import { resolve } from 'node:path';
import { statSync } from 'node:fs';
import type { ConvertOptions } from '../../common/protocol';
import { PageWorkerPool } from '../worker/pool';
import { disposeVlmEngines } from '../convert/vlmEngine';
import { remoteVlmOption } from '../vlm/remoteOptions';
import { UsageError } from '../errors';
import { ENGINE_FLAGS, LIMIT_FLAGS, QUEUE_FLAGS, RUN_FLAGS, VLM_FLAGS } from '../flags/groups';
import {
  numberFlag,
  parseFlags,
  pick,
  refine,
  switchFlag,
  textFlag,
  usageText,
  valueFlag,
  wantsHelp,
  type Flag,
} from '../flags/table';
import { buildServer, DEFAULT_LIMITS, type ServiceLimits } from './app';
import { InProcessRunner, QueueRunner, type TaskRunner } from './tasks';
import { WorkDir } from './workdir';
import { DEFAULT_LIMITS as CONVERT_LIMITS } from '../worker/limits';

/** Whole numbers of the service's own flags are read as numbers and cut to their whole part, as always. */
const whole = (flag: Flag<number>): Flag<number> => ({ ...flag, read: (t, f, p) => Math.trunc(flag.read(t, f, p)) });

/** A name or origin `--allow-host` / `--allow-origin` may give several times; each is appended. */
function repeated(
  arg: string,
  help: readonly string[],
  check: (text: string, flag: string) => string,
): Flag<string[], string[]> {
  return { arg, help, default: [], read: (text, flag, prev = []) => [...prev, check(text, flag)] };
}

function allowedOrigin(text: string, flag: string): string {
  const o = text.trim();
  if (o === '*') return o;
  let u: URL | undefined;
  try {
    u = new URL(o);
  } catch {
    /* refused below */
  }
  if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:') || u.origin !== o.replace(/\/$/, ''))
    throw new UsageError(`${flag} takes an origin such as https://app.example:8443, not "${o}"`);
  return o;
}

/** `folio serve`'s flags: its own, then the groups it shares with convert and worker (server/flags/groups.ts). */
export const SERVE_FLAGS = {
  host: textFlag('<addr>', ['address to bind (default 127.0.0.1; 0.0.0.0 exposes it to the network)']),
  port: whole(numberFlag('<n>', 0, 65535, ['port (default 5001)'])),
  'api-key': textFlag('<key>', ['require this key in X-Api-Key (or FOLIO_API_KEY)']),
  'work-dir': valueFlag(
    '<dir>',
    [
      'uploads and results: a folder of your own, made 0700 (default: a new',
      'private folder under the temporary folder, removed on exit)',
    ],
    (text) => resolve(text),
  ),
  'max-upload-mb': numberFlag('<n>', 0.001, 10240, ['largest upload (default 100)']),
  'max-pages': refine(LIMIT_FLAGS['max-pages'], { default: 2000, help: ['most pages per document (default 2000)'] }),
  // The same limit as convert's and mcp's (server/flags/groups.ts): a workbook or CSV is read up to it, with a warning.
  'max-cells': LIMIT_FLAGS['max-cells'],
  'task-timeout': numberFlag('<s>', 0, 7 * 86400, ['per-task time limit (default 1800; 0 = none)']),
  retention: numberFlag('<s>', 1, 30 * 86400, ['results kept this long (default 3600)']),
  'allow-local': valueFlag('<dir>', ['let /v1/convert/source read PDFs inside <dir> by path'], (text, flag) => {
    const d = resolve(text);
    if (!statSync(d, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`${flag}: ${d} is not a folder`);
    return d;
  }),
  'allow-http-sources': switchFlag([
    "let /v1/convert/source fetch http(s) URLs (docling-serve's http_sources;",
    'public addresses only, same size limit as uploads)',
  ]),
  'allow-private-sources': switchFlag(['with --allow-http-sources: also loopback and private addresses']),
  'max-files': whole(numberFlag('<n>', 1, 1000, ['files in one request (default 20)'])),
  'allow-host': repeated(
    '<name>',
    [
      'accept this Host name too (repeatable; IP addresses and localhost',
      'always; * = any). Other names are refused (DNS rebinding)',
    ],
    (text, flag) => {
      const h = text.trim().toLowerCase();
      if (!/^(\*|[a-z0-9._-]+)$/.test(h)) throw new UsageError(`${flag} takes a host name (no port), or *`);
      return h;
    },
  ),
  'allow-origin': repeated(
    '<url>',
    ['let web pages of this origin call the service (repeatable; * = any)'],
    allowedOrigin,
  ),
  'max-connections': whole(
    numberFlag('<n>', 1, 100000, [`open connections at once (default ${DEFAULT_LIMITS.maxConnections}; more: 503)`]),
  ),
  'max-uploads': whole(
    numberFlag('<n>', 1, 10000, [`uploads received at once (default ${DEFAULT_LIMITS.maxUploadsInFlight}; more: 429)`]),
  ),
  'max-queue': whole(
    numberFlag('<n>', 1, 1e6, [`documents waiting to start (default ${DEFAULT_LIMITS.maxQueued}; more: 503)`]),
  ),
  'request-timeout': numberFlag('<s>', 1, 86400, [
    `time to receive a whole request (default ${DEFAULT_LIMITS.requestTimeoutMs / 1000})`,
  ]),
  redis: refine(QUEUE_FLAGS.redis, {
    default: undefined,
    help: ['run jobs on `folio worker`s through this Redis (BullMQ)'],
  }),
  'range-pages': QUEUE_FLAGS['range-pages'],
  jobs: refine(RUN_FLAGS.jobs, {
    default: 2,
    help: ['in-process: page-worker threads and documents at once (default 2)'],
  }),
  ...pick(ENGINE_FLAGS, 'engine', 'models'),
  ...VLM_FLAGS,
};

export const SERVE_USAGE = usageText('usage: folio serve [options]', SERVE_FLAGS, '', 26);

export interface ServeArgs {
  host: string;
  port: number;
  apiKey?: string;
  /** Absent: a fresh private folder (WorkDir.fresh). */
  workDir?: string;
  allowedHosts: string[];
  allowedOrigins: string[];
  httpSources: { enabled: boolean; allowPrivate: boolean };
  maxFiles: number;
  limits: ServiceLimits;
  maxUploadBytes: number;
  maxPages: number;
  /** Most cells read of each workbook or CSV; absent: the default (server/worker/limits.ts). */
  maxCells?: number;
  timeoutMs: number;
  retentionMs: number;
  allowLocal?: string;
  redis?: string;
  rangePages?: number;
  jobs: number;
  base: ConvertOptions;
}

export function parseServeArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): ServeArgs {
  const { values: v } = parseFlags(SERVE_FLAGS, argv, { positionals: false });
  const base: ConvertOptions = { engine: v.engine ?? 'pipeline' };
  if (v.models !== undefined) base.modelsDir = v.models;
  Object.assign(base, remoteVlmOption({ vlmUrl: v['vlm-url'], vlmModel: v['vlm-model'], vlmApiKey: v['vlm-api-key'] }));
  if (v.redis && (base.modelsDir || base.remoteVlm)) {
    // Workers refuse jobs that name places (server/queue/schema.ts): these are the workers' own settings.
    throw new UsageError(
      'with --redis the workers convert: give --models / --vlm-url to each `folio worker`, not to folio serve',
    );
  }
  if (v.redis && v['max-cells'] !== undefined) {
    // A queue record carries no cell limit: the workers read each workbook up to their own default.
    throw new UsageError(
      `with --redis the workers convert, each reading a workbook up to ${CONVERT_LIMITS.maxCells} cells: leave out --max-cells`,
    );
  }
  const httpSources = { enabled: v['allow-http-sources'], allowPrivate: v['allow-private-sources'] };
  if (httpSources.allowPrivate && !httpSources.enabled)
    throw new UsageError('--allow-private-sources needs --allow-http-sources');
  const limits: ServiceLimits = { ...DEFAULT_LIMITS };
  if (v['max-connections'] !== undefined) limits.maxConnections = v['max-connections'];
  if (v['max-uploads'] !== undefined) limits.maxUploadsInFlight = v['max-uploads'];
  if (v['max-queue'] !== undefined) limits.maxQueued = v['max-queue'];
  if (v['request-timeout'] !== undefined) limits.requestTimeoutMs = v['request-timeout'] * 1000;
  return {
    host: v.host ?? '127.0.0.1',
    port: v.port ?? 5001,
    apiKey: v['api-key'] ?? (env.FOLIO_API_KEY || undefined),
    workDir: v['work-dir'],
    allowedHosts: [...v['allow-host']],
    allowedOrigins: [...v['allow-origin']],
    httpSources,
    maxFiles: v['max-files'] ?? 20,
    limits,
    maxUploadBytes: Math.round((v['max-upload-mb'] ?? 100) * 1024 * 1024),
    maxPages: v['max-pages'],
    ...(v['max-cells'] !== undefined ? { maxCells: v['max-cells'] } : {}),
    timeoutMs: (v['task-timeout'] ?? 1800) * 1000,
    retentionMs: (v['retention'] ?? 3600) * 1000,
    allowLocal: v['allow-local'],
    redis: v.redis,
    rangePages: v['range-pages'],
    jobs: v.jobs,
    base,
  };
}

export async function serveCommand(argv: string[], version = '0.1.0'): Promise<number> {
  if (wantsHelp(argv)) {
    process.stdout.write(SERVE_USAGE + '\n');
    return 0;
  }
  const args = parseServeArgs(argv);
  // A work folder refused (a link, another user's) is a WorkDirError: kind `input`, exit code 2.
  const work = args.workDir ? new WorkDir(args.workDir) : WorkDir.fresh();
  const limits = {
    maxPages: args.maxPages,
    maxCells: args.maxCells,
    timeoutMs: args.timeoutMs,
    retentionMs: args.retentionMs,
  };
  let pool: PageWorkerPool | undefined;
  let runner: TaskRunner;
  if (args.redis) runner = new QueueRunner(args.redis, work, limits, args.rangePages);
  else {
    pool = new PageWorkerPool({ size: args.jobs });
    runner = new InProcessRunner(pool, work, limits, args.jobs);
  }
  const app = await buildServer({
    runner,
    work,
    baseOptions: args.base,
    apiKey: args.apiKey,
    maxUploadBytes: args.maxUploadBytes,
    allowLocalRoot: args.allowLocal,
    version,
    allowedHosts: args.allowedHosts,
    allowedOrigins: args.allowedOrigins,
    limits: args.limits,
    httpSources: args.httpSources,
    maxFilesPerRequest: args.maxFiles,
    retentionMs: args.retentionMs,
    taskTimeoutMs: args.timeoutMs,
  });
  const address = await app.listen({ host: args.host, port: args.port });
  process.stderr.write(
    `folio serve: listening on ${address} (${runner.kind}${args.apiKey ? ', API key required' : ''}; work folder ${work.root})\n`,
  );
  if (args.host !== '127.0.0.1' && args.host !== 'localhost' && args.host !== '::1' && !args.apiKey) {
    process.stderr.write('folio serve: warning: reachable from the network without an API key (pass --api-key)\n');
  }
  await new Promise<void>((r) => {
    process.once('SIGINT', () => r());
    process.once('SIGTERM', () => r());
  });
  process.stderr.write('folio serve: stopping\n');
  await app.close();
  await runner.close();
  await Promise.all([pool?.dispose(), disposeVlmEngines()]);
  work.dispose();
  return 0;
}
