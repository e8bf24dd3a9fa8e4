/**
 * A JSON-RPC client for Folio's real backend process (`node dist/server.js --stdio`), used by the
 * integration tests, the fuzzer and the benchmarks. It speaks the same protocol as the
 * extension's vscode-languageclient, without VS Code.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import {
  CancellationTokenSource,
  ConfigurationRequest,
  createMessageConnection,
  InitializeRequest,
  ExitNotification,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  WorkDoneProgress,
  type MessageConnection,
} from 'vscode-languageserver-protocol/node';
import {
  ConvertRequest,
  LogNotification,
  PagePartialNotification,
  ReparseRegionRequest,
  type PagePartialParams,
  type ConvertParams,
  type ConvertSummary,
  type PageResult,
  type ReparseRegionParams,
  type ReparseRegionResult,
} from '../../common/protocol';
import { repoRoot } from './corpus';

export interface ConvertRun {
  /** Resolves with the summary (or rejects with the backend's ResponseError). */
  result: Promise<ConvertSummary>;
  /** Pages received through the partial-result token, in arrival order, with arrival times. */
  pages: { page: PageResult; at: number; n: number }[];
  /** `folio/pagePartial` notifications of this request (`pagePartials: true`); `n` orders them among `pages`. */
  partials: { partial: PagePartialParams; at: number; n: number }[];
  progress: string[];
  /** Resolves once `count` partials of this request have arrived (a test waits for streaming to be under way). */
  partialsReach(count: number): Promise<void>;
  /** Sends $/cancelRequest. */
  cancel(): void;
}

export class BackendProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly connection: MessageConnection;
  readonly logs: string[] = [];
  private readonly logWaiters: { re: RegExp; resolve: (line: string) => void }[] = [];
  stderr = '';
  exitCode: number | null = null;
  /** One handler per method in vscode-jsonrpc: partials are dispatched by request token here. */
  private readonly partialListeners = new Map<string | number, (p: PagePartialParams) => void>();

  private constructor(env: NodeJS.ProcessEnv) {
    this.child = spawn(process.execPath, [join(repoRoot(), 'dist', 'server.js'), '--stdio'], {
      env: { ...process.env, ...env },
      stdio: 'pipe',
    });
    this.child.stderr.on('data', (d: Buffer) => (this.stderr += d.toString()));
    this.child.on('exit', (code) => (this.exitCode = code));
    this.connection = createMessageConnection(
      new StreamMessageReader(this.child.stdout),
      new StreamMessageWriter(this.child.stdin),
    );
    this.connection.onNotification(LogNotification.type, (p) => {
      const line = `[${p.level}] ${p.message}`;
      this.logs.push(line);
      for (const w of this.logWaiters.filter((x) => x.re.test(line))) {
        this.logWaiters.splice(this.logWaiters.indexOf(w), 1);
        w.resolve(line);
      }
    });
    this.connection.onNotification(PagePartialNotification.type, (p) =>
      this.partialListeners.get(p.partialResultToken)?.(p),
    );
    this.connection.listen();
  }

  /**
   * `settings` (by section, e.g. `{'folio.limits': {pageMemoryMb: 64}}`) makes this client answer
   * `workspace/configuration` as VS Code does, and announce that it can.
   */
  static async start(env: NodeJS.ProcessEnv = {}, settings?: Record<string, unknown>): Promise<BackendProcess> {
    const b = new BackendProcess(env);
    if (settings)
      b.connection.onRequest(ConfigurationRequest.type, (p) =>
        p.items.map((i) => (i.section ? (settings[i.section] ?? null) : null)),
      );
    await b.connection.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      rootUri: null,
      capabilities: settings ? { workspace: { configuration: true } } : {},
    });
    return b;
  }

  /** The first `folio/log` line from index `from` on matching `re`, when it arrives (an event to wait for instead of a time). */
  waitForLog(re: RegExp, from = 0): Promise<string> {
    const seen = this.logs.slice(from).find((l) => re.test(l));
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.logWaiters.push({ re, resolve }));
  }

  convert(params: Omit<ConvertParams, 'workDoneToken' | 'partialResultToken'>): ConvertRun {
    const workDoneToken = randomUUID();
    const partialResultToken = randomUUID();
    const cts = new CancellationTokenSource();
    const pages: ConvertRun['pages'] = [];
    const partials: ConvertRun['partials'] = [];
    const progress: string[] = [];
    let n = 0;
    const subs = [
      this.connection.onProgress(ConvertRequest.partialResult, partialResultToken, (p) => {
        pages.push({ page: p, at: Date.now(), n: n++ });
      }),
    ];
    let partialWaiters: { count: number; resolve: () => void }[] = [];
    // Kept after the answer (not removed with the others): a late partial must be seen to be caught.
    this.partialListeners.set(partialResultToken, (p) => {
      partials.push({ partial: p, at: Date.now(), n: n++ });
      partialWaiters = partialWaiters.filter((w) => (partials.length >= w.count ? (w.resolve(), false) : true));
    });
    const partialsReach = (count: number) =>
      partials.length >= count
        ? Promise.resolve()
        : new Promise<void>((resolve) => partialWaiters.push({ count, resolve }));
    subs.push(
      this.connection.onProgress(WorkDoneProgress.type, workDoneToken, (v) => {
        if (v.kind === 'report' && v.message) progress.push(v.message);
      }),
    );
    const result = this.connection
      .sendRequest(ConvertRequest.type, { ...params, workDoneToken, partialResultToken }, cts.token)
      .finally(() => subs.forEach((s) => s.dispose()));
    return { result, pages, partials, progress, partialsReach, cancel: () => cts.cancel() };
  }

  reparse(params: ReparseRegionParams): Promise<ReparseRegionResult> {
    return this.connection.sendRequest(ReparseRegionRequest.type, params);
  }

  /**
   * Polite shutdown (LSP shutdown + exit); the process is killed by PID if it has not exited
   * within `graceMs`. Every step is bounded: a broken pipe must not hang a test.
   */
  async stop(graceMs = 15_000): Promise<void> {
    if (this.exitCode !== null || this.child.exitCode !== null || this.child.signalCode !== null) {
      this.connection.dispose();
      return;
    }
    const exited = new Promise<void>((res) => this.child.once('exit', () => res()));
    const kill = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    const bounded = <T>(p: Promise<T>, ms: number) =>
      Promise.race([p.catch(() => undefined), new Promise((r) => setTimeout(r, ms))]);
    await bounded(this.connection.sendRequest(ShutdownRequest.type), 5000);
    await bounded(this.connection.sendNotification(ExitNotification.type), 1000);
    await exited;
    clearTimeout(kill);
    this.connection.dispose();
  }
}
