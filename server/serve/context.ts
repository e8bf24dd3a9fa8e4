/**
 * What every part of `folio serve` shares: the configuration the command line gave, the limits
 * that follow from it, the task registry (jobs.ts over the runner) and the few per-request
 * records the hooks and the routes hand each other (uploads in flight, a JSON body's streamed
 * files, its admission slot). One `ServeContext` is made per server by app.ts `buildServer` and
 * given to each route plugin (routes/) and to the request reader (requests.ts).
 */
import type { FastifyRequest } from 'fastify';
import type { ConvertOptions } from '../../common/protocol';
import type { TaskRunner } from './tasks';
import type { WorkDir } from './workdir';
import { DEFAULT_CONNECTION_TIMEOUTS, type GateConfig } from './guard';
import type { HttpSourcePolicy } from './sources';
import type { StreamedFile } from './jsonSources';
import type { StatusSocketLimits } from './statusWebSocket';
import { Jobs } from './jobs';

export interface ServeConfig {
  runner: TaskRunner;
  work: WorkDir;
  /** Defaults for every request (engine, models folder, remote VLM) from the command line. */
  baseOptions: ConvertOptions;
  apiKey?: string;
  maxUploadBytes: number;
  /** A folder whose PDFs /v1/convert/source may read by path; absent: local paths refused. */
  allowLocalRoot?: string;
  version: string;
  /** Host names accepted besides IP literals and localhost (`--allow-host`; `*` any). */
  allowedHosts?: string[];
  /** Web origins allowed to call the service (`--allow-origin`); none by default. */
  allowedOrigins?: string[];
  limits?: Partial<ServiceLimits>;
  /** Files in one request (multipart or sources); default 20. */
  maxFilesPerRequest?: number;
  /** docling-serve's http sources: off unless `--allow-http-sources`; private addresses only with `--allow-private-sources`. */
  httpSources?: {
    enabled: boolean;
    allowPrivate: boolean;
    timeoutMs?: number;
    connectForTest?: HttpSourcePolicy['connectForTest'];
  };
  /** `--task-timeout`: chunk answers are made within it too (chunkInWorker.ts); 0 or absent: none. */
  taskTimeoutMs?: number;
  /** How long a multi-document request's record is kept (the runner keeps the documents); default 1 h. */
  retentionMs?: number;
  /** Where Fastify's request log goes (JSON lines); none by default. `api_key` query values are redacted. */
  requestLog?: NodeJS.WritableStream;
  /** The WebSocket status route's bounds (each socket also counts as a connection). */
  statusSockets?: Partial<StatusSocketLimits>;
}

/** What one service takes at once (issue 21 item 10); each excess is answered, never queued silently. */
export interface ServiceLimits {
  /** Open connections; more → 503 and closed. */
  maxConnections: number;
  /** Uploads being received at once; more → 429. */
  maxUploadsInFlight: number;
  /** Documents (in-process) or jobs (queue) waiting to start; more → 503. */
  maxQueued: number;
  /** Time to receive a whole request (headers and body); slower → the connection is closed. */
  requestTimeoutMs: number;
  /** A new connection's time to send a request that passes the gate with the key; else closed (guard.ts). */
  admitTimeoutMs: number;
  /** A request body that sends nothing this long: closed. */
  idleTimeoutMs: number;
}

export const DEFAULT_LIMITS: ServiceLimits = {
  maxConnections: 64,
  maxUploadsInFlight: 16,
  maxQueued: 100,
  requestTimeoutMs: 300_000,
  admitTimeoutMs: DEFAULT_CONNECTION_TIMEOUTS.admitMs,
  idleTimeoutMs: DEFAULT_CONNECTION_TIMEOUTS.idleMs,
};

export class ServeContext {
  readonly limits: ServiceLimits;
  /** Files in one request (multipart parts or JSON sources). */
  readonly maxFiles: number;
  /** The largest JSON body: base64 is 4/3 of the bytes, so one upload's worth of files, encoded. */
  readonly jsonLimit: number;
  readonly jobs: Jobs;
  /** Uploads being received now: multipart bodies, and JSON source bodies from admission to storage. */
  uploadsInFlight = 0;
  /** A JSON body's file sources already decoded to disk while it arrived (app.ts's JSON parser). */
  readonly streamed = new WeakMap<FastifyRequest, Map<string, StreamedFile>>();
  /** Releases a JSON body's admission slot (taken in preParsing, released once its sources are stored). */
  readonly jsonSlots = new WeakMap<FastifyRequest, () => void>();

  constructor(readonly cfg: ServeConfig) {
    this.limits = { ...DEFAULT_LIMITS, ...cfg.limits };
    this.maxFiles = cfg.maxFilesPerRequest ?? 20;
    this.jsonLimit = Math.ceil(cfg.maxUploadBytes * 1.34) + 1024 * 1024;
    this.jobs = new Jobs(cfg.runner, cfg.work, cfg.retentionMs ?? 3600_000, cfg.taskTimeoutMs ?? 0);
  }

  /** guard.ts's view of the configuration, read afresh for each request. */
  gateConfig(): GateConfig {
    return {
      apiKey: this.cfg.apiKey,
      allowedHosts: this.cfg.allowedHosts ?? [],
      allowedOrigins: this.cfg.allowedOrigins ?? [],
      maxConnections: this.limits.maxConnections,
    };
  }
}
