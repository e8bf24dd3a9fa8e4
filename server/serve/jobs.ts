/**
 * A request of the docling-serve API — one or several documents to convert or chunk, with what
 * the client asked to get back — over the runner's one-document tasks. A request of one
 * document takes that task's id (so a queue-backed service restarted meanwhile still answers
 * for it, with the default outputs); a request of several gets its own id, kept here in memory.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { ConvertOptions, ErrorKind } from '../../common/protocol';
import { conversionStatus, errorItems, exportDocument, type DocSource } from './doclingResult';
import type { ChunkingRequest, RequestOptions } from './doclingOptions';
import type { StoredInput } from './inputs';
import type { TaskResult, TaskRunner, TaskStatusView } from './tasks';
import type { WorkDir } from './workdir';
import { isZipAssetName, resultsZip } from './zip';
import { chunkInWorker } from './chunkInWorker';

export interface Job {
  id: string;
  type: 'convert' | 'chunk';
  docs: DocSource[];
  opts: RequestOptions;
  chunking?: ChunkingRequest;
  /** Answer a zip (target zip, or several documents converted). */
  zip: boolean;
  includeConvertedDoc: boolean;
  warnings: string[];
  created: number;
}

export interface StatusBody {
  task_id: string;
  task_type: 'convert' | 'chunk';
  task_status: string;
  task_position: number | null;
  task_meta: {
    num_docs: number;
    num_processed: number;
    num_succeeded: number;
    num_failed: number;
    pages_done: number;
    pages_total: number | null;
  };
  error_message: string | null;
  /** Folio's earlier field, kept for its clients. */
  error: string | null;
}

export type JobResult =
  | { kind: 'json'; body: Record<string, unknown>; failed?: { message: string; kind: ErrorKind } }
  | { kind: 'zip'; bytes: Buffer };

const DEFAULT_OPTS: RequestOptions = {
  api: {},
  toFormats: ['md', 'json', 'doctags'],
  imageMode: 'referenced',
  warnings: [],
};

export class Jobs {
  private readonly jobs = new Map<string, Job>();

  constructor(
    private readonly runner: TaskRunner,
    private readonly work: WorkDir,
    private readonly retentionMs: number,
    /** `--task-timeout`: a chunk answer is made within it too (0: none). */
    private readonly taskTimeoutMs = 0,
  ) {}

  async submit(
    type: Job['type'],
    inputs: StoredInput[],
    opts: RequestOptions,
    convert: ConvertOptions,
    extra: { zip: boolean; chunking?: ChunkingRequest; includeConvertedDoc?: boolean; warnings: string[] },
  ): Promise<Job> {
    this.sweep();
    const docs: DocSource[] = [];
    for (const inp of inputs) {
      const taskId = await this.runner.submit({
        file: inp.path,
        name: inp.name,
        owned: inp.owned,
        options: convert,
        pages: opts.api.page_range,
        password: opts.api.password,
      });
      docs.push({
        taskId,
        name: inp.name,
        mimetype: inp.mimetype,
        binaryHash: inp.binaryHash,
        ...(inp.owned ? { stored: basename(inp.path) } : {}),
      });
    }
    const job: Job = {
      id: docs.length === 1 ? docs[0]!.taskId : randomUUID(),
      type,
      docs,
      // A chunk answer's converted document is the DoclingDocument its doc_items point into (docling-serve ignores to_formats there too).
      opts: type === 'chunk' ? { ...opts, toFormats: ['md', 'json'] } : opts,
      chunking: extra.chunking,
      zip: extra.zip || (type === 'convert' && docs.length > 1),
      includeConvertedDoc: extra.includeConvertedDoc ?? false,
      warnings: [...opts.warnings, ...(extra.chunking?.warnings ?? []), ...extra.warnings],
      created: Date.now(),
    };
    this.jobs.set(job.id, job);
    return job;
  }

  /** The job, or for a task id this service did not record (a restart), a one-document job with the default outputs. */
  async find(id: string): Promise<Job | undefined> {
    const j = this.jobs.get(id);
    if (j) return j;
    const s = await this.runner.status(id);
    if (!s) return undefined;
    // The name comes with the result (read only when the result is asked for: a poll stays cheap).
    return {
      id,
      type: 'convert',
      docs: [{ taskId: id, name: '', mimetype: 'application/pdf', binaryHash: 0 }],
      opts: DEFAULT_OPTS,
      zip: false,
      includeConvertedDoc: false,
      warnings: [],
      created: Date.now(),
    };
  }

  private async states(job: Job): Promise<TaskStatusView[]> {
    const all = await Promise.all(job.docs.map((d) => this.runner.status(d.taskId)));
    return all.map((s, i) => {
      // The converter names the file it read, the generated upload name: the client knows its own.
      const d = job.docs[i]!;
      if (s?.error && d.stored && d.name) return { ...s, error: s.error.split(d.stored).join(d.name) };
      return (
        s ?? {
          id: job.docs[i]!.taskId,
          state: 'failure',
          pagesDone: 0,
          error: 'the task is no longer kept (past its retention time)',
          errorKind: 'not-found',
        }
      );
    });
  }

  async status(job: Job): Promise<StatusBody> {
    const states = await this.states(job);
    const running = states.filter((s) => s.state === 'pending' || s.state === 'started');
    const ok = states.filter((s) => s.state === 'success').length;
    const failed = states.filter((s) => s.state === 'failure').length;
    let state: string;
    if (running.length > 0)
      state = running.length === states.length && running.every((s) => s.state === 'pending') ? 'pending' : 'started';
    else if (ok === states.length) state = 'success';
    else if (states.some((s) => s.state === 'cancelled')) state = 'cancelled';
    else if (failed === states.length) state = 'failure';
    else state = 'partial_success';
    const errs = states.flatMap((s, i) =>
      s.error ? [states.length > 1 ? `${job.docs[i]!.name}: ${s.error}` : s.error] : [],
    );
    const totals = states.map((s) => s.pagesTotal);
    const position = states.find((s) => s.position !== undefined)?.position;
    return {
      task_id: job.id,
      task_type: job.type,
      task_status: state,
      task_position: state === 'pending' ? (position ?? null) : null,
      task_meta: {
        num_docs: states.length,
        num_processed: states.length - running.length,
        num_succeeded: ok,
        num_failed: failed,
        pages_done: states.reduce((n, s) => n + s.pagesDone, 0),
        pages_total: totals.every((t) => t !== undefined) ? totals.reduce((n: number, t) => n + (t ?? 0), 0) : null,
      },
      error_message: errs.length > 0 ? errs.join('; ') : null,
      error: errs.length > 0 ? errs.join('; ') : null,
    };
  }

  async wait(job: Job, signal?: AbortSignal): Promise<void> {
    for (const d of job.docs) await this.runner.wait(d.taskId, signal);
  }

  async cancel(job: Job): Promise<void> {
    for (const d of job.docs) await this.runner.cancel(d.taskId);
  }

  /** The pictures of a queue result live in Redis: put them in the task's result folder so exports read them like in-process ones. */
  private folderFor(r: TaskResult, taskId: string): string {
    const dir = this.work.resultDir(taskId);
    for (const [name, bytes] of r.assets) {
      // The zip's rule (letters of any script, as in-process crops are named): an ASCII-only rule
      // here dropped the pictures of `café.pdf` (security round 3, F11).
      if (!isZipAssetName(name) || name.split('/').some((p) => p === '..' || p === '.')) continue;
      const path = join(dir, name);
      if (existsSync(path)) continue;
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      writeFileSync(path, bytes, { flag: 'wx', mode: 0o600 });
    }
    return dir;
  }

  async result(job: Job): Promise<JobResult> {
    const states = await this.states(job);
    const started = Date.now();
    const results: { src: DocSource; r: TaskResult | undefined; s: TaskStatusView }[] = [];
    for (const [i, doc] of job.docs.entries()) {
      const r = await this.runner.result(doc.taskId);
      results.push({ src: doc.name ? doc : { ...doc, name: r?.name ?? 'document.pdf' }, r, s: states[i]! });
    }
    const warnings = [...job.warnings];
    const exported = results.map(({ src, r, s }) => {
      // A document without a result, or whose export was not asked for, answers with every content null.
      const empty = {
        filename: src.name,
        md_content: null,
        json_content: null,
        html_content: null,
        text_content: null,
        doctags_content: null,
      };
      if (!r) return { src, r, s, document: empty };
      const dir = this.folderFor(r, src.taskId);
      const want = job.type === 'convert' || job.includeConvertedDoc;
      const e = want ? exportDocument(r, src, dir, job.opts) : undefined;
      if (e) warnings.push(...e.warnings.map((w) => (job.docs.length > 1 ? `${src.name}: ${w}` : w)));
      return {
        src,
        r,
        s,
        dir,
        document: e?.document ?? empty,
      };
    });
    const elapsed =
      Math.max(...results.map((x) => x.r?.summary.elapsedMs ?? 0), 0) / 1000 + (Date.now() - started) / 1000;
    if (job.type === 'convert') {
      if (job.zip)
        return {
          kind: 'zip',
          bytes: resultsZip(
            exported.filter((x) => x.r && x.r.pages.length > 0).map((x) => ({ result: x.r!, document: x.document })),
          ),
        };
      const one = exported[0]!;
      const body = {
        document: one.document,
        status: conversionStatus(one.r, one.s),
        errors: errorItems(one.r, one.s),
        processing_time: elapsed,
        timings: {},
        warnings: [...warnings, ...(one.r?.summary.warnings ?? [])],
        task_id: job.id,
      };
      return one.s.state === 'failure'
        ? {
            kind: 'json',
            body,
            failed: { message: one.s.error ?? 'conversion failed', kind: one.s.errorKind ?? 'internal' },
          }
        : { kind: 'json', body };
    }
    const chunks: Record<string, unknown>[] = [];
    for (const x of exported)
      if (x.r) chunks.push(...(await chunkInWorker(x.r, x.src, x.dir!, job.chunking!, this.taskTimeoutMs)).items);
    return {
      kind: 'json',
      body: {
        chunks,
        documents: exported.map((x) => ({
          kind: 'ExportResult',
          content: x.document,
          status: conversionStatus(x.r, x.s),
          errors: errorItems(x.r, x.s),
          timings: {},
        })),
        processing_time: elapsed,
        warnings,
        task_id: job.id,
      },
    };
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, j] of this.jobs) if (now - j.created > this.retentionMs) this.jobs.delete(id);
  }

  /** /v1/clear/results: the records and the runner's results of tasks older than `olderThanMs`. */
  async clearResults(olderThanMs: number): Promise<void> {
    const now = Date.now();
    for (const [id, j] of [...this.jobs]) {
      if (now - j.created < olderThanMs) continue;
      // A job still running keeps its record: its answer needs the options it was asked with.
      const states = await this.states(j);
      if (states.every((s) => s.state !== 'pending' && s.state !== 'started')) this.jobs.delete(id);
    }
    await this.runner.clearResults?.(olderThanMs);
  }
}
