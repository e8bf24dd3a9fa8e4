/** `folio serve`: parses its flags, builds the runner (in-process, or the queue with --redis) and listens. */
import { resolve } from 'node:path';
import { statSync } from 'node:fs';
import type { ConvertOptions } from '../../common/protocol';
import { PageWorkerPool } from '../worker/pool';
import { disposeVlmEngines } from '../convert/vlmEngine';
import { checkRedisUrl } from '../queue/connection';
import { remoteVlmOption } from '../vlm/remoteOptions';
import { buildServer, DEFAULT_LIMITS, type ServiceLimits } from './app';
import { InProcessRunner, QueueRunner, type TaskRunner } from './tasks';
import { WorkDir, WorkDirError } from './workdir';

export const SERVE_USAGE = `usage: folio serve [options]

      --host <addr>         address to bind (default 127.0.0.1; 0.0.0.0 exposes it to the network)
      --port <n>            port (default 5001)
      --api-key <key>       require this key in X-Api-Key (or FOLIO_API_KEY)
      --work-dir <dir>      uploads and results: a folder of your own, made 0700 (default: a new
                            private folder under the temporary folder, removed on exit)
      --max-upload-mb <n>   largest upload (default 100)
      --max-pages <n>       most pages per document (default 2000)
      --task-timeout <s>    per-task time limit (default 1800; 0 = none)
      --retention <s>       results kept this long (default 3600)
      --allow-local <dir>   let /v1/convert/source read PDFs inside <dir> by path
      --allow-http-sources  let /v1/convert/source fetch http(s) URLs (docling-serve's http_sources;
                            public addresses only, same size limit as uploads)
      --allow-private-sources  with --allow-http-sources: also loopback and private addresses
      --max-files <n>       files in one request (default 20)
      --allow-host <name>   accept this Host name too (repeatable; IP addresses and localhost
                            always; * = any). Other names are refused (DNS rebinding)
      --allow-origin <url>  let web pages of this origin call the service (repeatable; * = any)
      --max-connections <n> open connections at once (default ${DEFAULT_LIMITS.maxConnections}; more: 503)
      --max-uploads <n>     uploads received at once (default ${DEFAULT_LIMITS.maxUploadsInFlight}; more: 429)
      --max-queue <n>       documents waiting to start (default ${DEFAULT_LIMITS.maxQueued}; more: 503)
      --request-timeout <s> time to receive a whole request (default ${DEFAULT_LIMITS.requestTimeoutMs / 1000})
      --redis <url>         run jobs on \`folio worker\`s through this Redis (BullMQ)
      --range-pages <n>     pages per queue job (default 8)
      --jobs <n>            in-process: page-worker threads and documents at once (default 2)
      --engine <e>          default engine: pipeline or vlm
      --models <dir>        model folder for the local VLM
      --vlm-url <url>       remote VLM (OpenAI-compatible), --vlm-model, --vlm-api-key as for convert`;

export class ServeUsageError extends Error {}

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
  timeoutMs: number;
  retentionMs: number;
  allowLocal?: string;
  redis?: string;
  rangePages?: number;
  jobs: number;
  base: ConvertOptions;
}

export function parseServeArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): ServeArgs {
  const a: ServeArgs = {
    host: '127.0.0.1',
    port: 5001,
    apiKey: env.FOLIO_API_KEY || undefined,
    allowedHosts: [],
    allowedOrigins: [],
    httpSources: { enabled: false, allowPrivate: false },
    maxFiles: 20,
    limits: { ...DEFAULT_LIMITS },
    maxUploadBytes: 100 * 1024 * 1024,
    maxPages: 2000,
    timeoutMs: 1800 * 1000,
    retentionMs: 3600 * 1000,
    jobs: 2,
    base: { engine: 'pipeline' },
  };
  const vlm: { vlmUrl?: string; vlmModel?: string; vlmApiKey?: string } = {};
  const num = (flag: string, v: string | undefined, min: number, max: number): number => {
    const n = Number(v);
    if (v === undefined || !Number.isFinite(n) || n < min || n > max)
      throw new ServeUsageError(`${flag} takes a number from ${min} to ${max}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const value = (): string | undefined => (eq > 0 ? arg.slice(eq + 1) : argv[++i]);
    switch (flag) {
      case '--host':
        a.host = value() ?? '';
        break;
      case '--port':
        a.port = Math.trunc(num(flag, value(), 0, 65535));
        break;
      case '--api-key':
        a.apiKey = value();
        break;
      case '--work-dir':
        a.workDir = resolve(value() ?? '');
        break;
      case '--max-upload-mb':
        a.maxUploadBytes = Math.round(num(flag, value(), 0.001, 10240) * 1024 * 1024);
        break;
      case '--max-pages':
        a.maxPages = Math.trunc(num(flag, value(), 1, 1e6));
        break;
      case '--task-timeout':
        a.timeoutMs = num(flag, value(), 0, 7 * 86400) * 1000;
        break;
      case '--retention':
        a.retentionMs = num(flag, value(), 1, 30 * 86400) * 1000;
        break;
      case '--allow-host': {
        const h = (value() ?? '').trim().toLowerCase();
        if (!/^(\*|[a-z0-9._-]+)$/.test(h)) throw new ServeUsageError(`--allow-host takes a host name (no port), or *`);
        a.allowedHosts.push(h);
        break;
      }
      case '--allow-origin': {
        const o = (value() ?? '').trim();
        if (o !== '*') {
          let u: URL | undefined;
          try {
            u = new URL(o);
          } catch {
            /* refused below */
          }
          if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:') || u.origin !== o.replace(/\/$/, ''))
            throw new ServeUsageError(`--allow-origin takes an origin such as https://app.example:8443, not "${o}"`);
        }
        a.allowedOrigins.push(o);
        break;
      }
      case '--allow-http-sources':
        a.httpSources.enabled = true;
        break;
      case '--allow-private-sources':
        a.httpSources.allowPrivate = true;
        break;
      case '--max-files':
        a.maxFiles = Math.trunc(num(flag, value(), 1, 1000));
        break;
      case '--max-connections':
        a.limits.maxConnections = Math.trunc(num(flag, value(), 1, 100000));
        break;
      case '--max-uploads':
        a.limits.maxUploadsInFlight = Math.trunc(num(flag, value(), 1, 10000));
        break;
      case '--max-queue':
        a.limits.maxQueued = Math.trunc(num(flag, value(), 1, 1e6));
        break;
      case '--request-timeout':
        a.limits.requestTimeoutMs = num(flag, value(), 1, 86400) * 1000;
        break;
      case '--allow-local': {
        const d = resolve(value() ?? '');
        if (!statSync(d, { throwIfNoEntry: false })?.isDirectory())
          throw new ServeUsageError(`--allow-local: ${d} is not a folder`);
        a.allowLocal = d;
        break;
      }
      case '--redis':
        a.redis = value();
        try {
          checkRedisUrl(a.redis ?? '');
        } catch (e) {
          throw new ServeUsageError((e as Error).message);
        }
        break;
      case '--range-pages':
        a.rangePages = Math.trunc(num(flag, value(), 1, 10000));
        break;
      case '--jobs':
        a.jobs = Math.trunc(num(flag, value(), 1, 64));
        break;
      case '--engine': {
        const e = value();
        if (e !== 'pipeline' && e !== 'vlm') throw new ServeUsageError(`--engine must be pipeline or vlm, not "${e}"`);
        a.base.engine = e;
        break;
      }
      case '--models':
        a.base.modelsDir = resolve(value() ?? '');
        break;
      case '--vlm-url':
        vlm.vlmUrl = value();
        break;
      case '--vlm-model':
        vlm.vlmModel = value();
        break;
      case '--vlm-api-key':
        vlm.vlmApiKey = value();
        break;
      default:
        throw new ServeUsageError(`unknown option ${arg}`);
    }
  }
  Object.assign(a.base, remoteVlmOption(vlm));
  if (a.redis && (a.base.modelsDir || a.base.remoteVlm)) {
    // Workers refuse jobs that name places (server/queue/schema.ts): these are the workers' own settings.
    throw new ServeUsageError(
      'with --redis the workers convert: give --models / --vlm-url to each `folio worker`, not to folio serve',
    );
  }
  if (a.httpSources.allowPrivate && !a.httpSources.enabled)
    throw new ServeUsageError('--allow-private-sources needs --allow-http-sources');
  return a;
}

export async function serveCommand(argv: string[], version = '0.1.0'): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(SERVE_USAGE + '\n');
    return 0;
  }
  const args = parseServeArgs(argv);
  let work: WorkDir;
  try {
    work = args.workDir ? new WorkDir(args.workDir) : WorkDir.fresh();
  } catch (e) {
    if (e instanceof WorkDirError) throw new ServeUsageError(e.message);
    throw e;
  }
  const limits = { maxPages: args.maxPages, timeoutMs: args.timeoutMs, retentionMs: args.retentionMs };
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
