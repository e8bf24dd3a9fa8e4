/**
 * The VLM engine's public seam for the backend: `loadVlm` checks the model folder on the calling
 * thread (so a missing file is reported at once, by name), then starts the worker thread that
 * owns the onnxruntime sessions. `VlmEngine` sends it pages and regions and turns cancel signals
 * into the shared flag the worker reads between decoder steps.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { CancelledError, deserializeError, FolioError } from '../errors';
import { FolioErrorCodes } from '../../common/protocol';
import { loadVlmConfig } from './config';
import type { LoopGuardOptions } from '../util/loopGuard';
import {
  CANCEL_SLOTS,
  type FromWorker,
  type PageJob,
  type RegionJob,
  type ToWorker,
  type VlmPageOutput,
  type WorkerInit,
} from './messages';
import type { ImageInput } from './preprocess';
import type { LayoutPriorSetting } from './prompt';
import type { SpeculationSetting } from '../speculative/defaults';

export type { VlmPageOutput } from './messages';
export type { ImageInput } from './preprocess';

export interface LoadVlmOptions {
  /** The models root (holding granite-docling-258M-ONNX/) or the VLM folder itself. */
  modelsDir: string;
  /** Execution providers in order (default cuda → webgpu → cpu). */
  providers?: string[];
  /** Variant of the ONNX files: fp32 (default), fp16, q8, int8, uint8, q4, q4f16, bnb4. */
  dtype?: string;
  log?: (msg: string) => void;
  /** folio.vlm.layoutPrior (default off: the model card never shows a <layout> prompt; auto sends priors for pages when boxes are known). */
  layoutPrior?: LayoutPriorSetting;
  maxNewTokens?: number;
  loopGuard?: LoopGuardOptions | false;
  threads?: number;
  /** Use the heron detector for priors when installed (default true). */
  detector?: boolean;
  /** folio.vlm.speculation: auto (default: the provider's mode), off, page or hsd. */
  speculation?: SpeculationSetting;
  /** Path of vlmWorker.js when not beside this bundle or in <repo>/dist. */
  workerPath?: string;
}

/** A page to convert: the worker's job plus the caller's cancel signal. */
export type ConvertPageRequest = PageJob & { signal?: AbortSignal };

/** One region to re-parse on its crop: the worker's job plus the caller's cancel signal. */
export type ParseRegionRequest = RegionJob & { signal?: AbortSignal };

export interface VlmEngine {
  readonly provider: string;
  convertPage(req: ConvertPageRequest): Promise<VlmPageOutput>;
  parseRegion(req: ParseRegionRequest): Promise<VlmPageOutput>;
  /** Says which page image comes next, so its tiles are computed while the current page decodes. */
  prefetch(image: ImageInput): void;
  dispose(): Promise<void>;
}

function findWorker(explicit?: string): string {
  const candidates = [explicit, join(__dirname, 'vlmWorker.js')];
  for (let dir = __dirname; ;) {
    candidates.push(join(dir, 'dist', 'vlmWorker.js'));
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  const found = candidates.find((c): c is string => !!c && existsSync(c));
  if (!found)
    throw new FolioError(
      FolioErrorCodes.ModelError,
      `The VLM worker (dist/vlmWorker.js) is missing beside ${__dirname}; rebuild Folio (npm run build).`,
    );
  return found;
}

export async function loadVlm(opts: LoadVlmOptions): Promise<VlmEngine> {
  // Throws a FolioError naming the missing or damaged file before any thread starts.
  loadVlmConfig(opts.modelsDir, opts.dtype ?? 'fp32');
  // onnxruntime's session code recurses on the creating thread; Node's default 4 MB worker stack
  // overflowed under the page workers' OCR sessions (eval/FINDINGS.md, 2026-11-28), and the VLM's
  // three sessions are larger graphs: the same 16 MB as the page workers.
  const worker = new Worker(findWorker(opts.workerPath), { resourceLimits: { stackSizeMb: 16 } });
  const cancel = new SharedArrayBuffer(4 * CANCEL_SLOTS);
  const flag = new Int32Array(cancel);
  const pending = new Map<
    number,
    { resolve: (r: VlmPageOutput) => void; reject: (e: Error) => void; cleanup: () => void }
  >();
  let nextId = 1;
  let dead: Error | undefined;

  const ready = new Promise<{ provider: string }>((resolve, reject) => {
    worker.on('message', (m: FromWorker) => {
      switch (m.type) {
        case 'ready':
          for (const f of m.fallbacks) opts.log?.(`VLM: ${f.provider} not used: ${f.reason.split('\n')[0]}`);
          opts.log?.(`VLM: running on ${m.provider}`);
          resolve({ provider: m.provider });
          break;
        case 'initError':
          reject(deserializeError(m.error));
          break;
        case 'log':
          opts.log?.(m.message);
          break;
        case 'done':
        case 'failed': {
          const p = pending.get(m.id);
          if (!p) break;
          pending.delete(m.id);
          p.cleanup();
          if (m.type === 'done') p.resolve(m.result);
          else p.reject(deserializeError(m.error));
          break;
        }
      }
    });
    const fail = (e: Error) => {
      dead = e;
      reject(e);
      for (const p of pending.values()) p.reject(e);
      pending.clear();
    };
    worker.on('error', (e) => fail(new FolioError(FolioErrorCodes.ModelError, `The VLM worker crashed: ${e.message}`)));
    worker.on('exit', (code) => {
      if (code !== 0) fail(new FolioError(FolioErrorCodes.ModelError, `The VLM worker exited with code ${code}`));
      else fail(new Error('the VLM engine was disposed'));
    });
  });
  const init: WorkerInit = {
    modelsDir: opts.modelsDir,
    providers: opts.providers,
    dtype: opts.dtype,
    threads: opts.threads,
    layoutPrior: opts.layoutPrior ?? 'off',
    maxNewTokens: opts.maxNewTokens,
    loopGuard: opts.loopGuard,
    detector: opts.detector,
    speculation: opts.speculation,
    cancel,
  };
  worker.postMessage({ type: 'init', init } satisfies ToWorker);
  let provider: string;
  try {
    provider = (await ready).provider;
  } catch (e) {
    await worker.terminate();
    throw e;
  }

  const submit = (msg: (id: number) => ToWorker, signal?: AbortSignal) =>
    new Promise<VlmPageOutput>((resolve, reject) => {
      if (dead) return reject(dead);
      if (signal?.aborted) return reject(new CancelledError('the VLM request'));
      const id = nextId++;
      const onAbort = () => Atomics.store(flag, id % CANCEL_SLOTS, id);
      signal?.addEventListener('abort', onAbort, { once: true });
      pending.set(id, { resolve, reject, cleanup: () => signal?.removeEventListener('abort', onAbort) });
      // Image pixels are copied (structured clone): the caller keeps its buffer.
      worker.postMessage(msg(id));
    });

  return {
    provider,
    convertPage: (req) => {
      const { signal, ...job } = req;
      return submit((id) => ({ type: 'page', id, job }), signal);
    },
    parseRegion: (req) => {
      const { signal, ...job } = req;
      return submit((id) => ({ type: 'region', id, job }), signal);
    },
    prefetch: (image) => {
      if (!dead) worker.postMessage({ type: 'prefetch', image } satisfies ToWorker);
    },
    dispose: async () => {
      if (dead) return;
      worker.postMessage({ type: 'dispose' } satisfies ToWorker);
      await new Promise<void>((r) => {
        const t = setTimeout(() => void worker.terminate().then(() => r()), 5000);
        worker.once('exit', () => {
          clearTimeout(t);
          r();
        });
      });
    },
  };
}
