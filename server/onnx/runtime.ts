/**
 * The only module in Folio that imports `onnxruntime-node` (OCR, the VLM and the layout
 * detector all create their sessions here), so execution-provider choice, fallback and
 * threading are decided in one place.
 *
 * onnxruntime does not fall back by itself: a session created with ["cuda", "cpu"] throws when
 * the CUDA provider library is missing. We therefore try each provider on its own, in the order
 * asked, and report the one that loaded.
 *
 * `session.run` blocks the calling thread: call it from worker threads only.
 *
 * Every session made here reports its runs to the thread's run hooks (`setRunHooks`): the page
 * worker counts runs in flight so its pool never terminates the thread inside one
 * (server/worker/cancelFlag.ts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as ort from 'onnxruntime-node';
import { messageOf } from '../errors';
import { webgpuAdapterInfo } from './webgpuAdapter';

export type Tensor = ort.Tensor;
export type Session = ort.InferenceSession;
export type TensorType = ort.Tensor.Type;
export type OnnxValueMap = Record<string, ort.Tensor>;

let ortModule: typeof ort | undefined;

/**
 * onnxruntime-node, loaded on first use: its native library costs a page worker ~15 ms to load,
 * and a born-digital page never runs a model (issue 22, start-up).
 */
function onnxruntime(): typeof ort {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (ortModule ??= require('onnxruntime-node') as typeof ort);
}

/**
 * onnxruntime's own Tensor constructor, reached through `onnxruntime()`: `new Tensor(...)` returns
 * an `ort.Tensor` (a constructor may return another object), so callers build tensors as before.
 */
export const Tensor = function Tensor(...args: unknown[]): ort.Tensor {
  return new (onnxruntime().Tensor as new (...a: unknown[]) => ort.Tensor)(...args);
} as unknown as typeof ort.Tensor;

export type ProviderName = 'cuda' | 'webgpu' | 'cpu' | 'dml' | 'coreml' | 'tensorrt';
export const DEFAULT_PROVIDERS: readonly ProviderName[] = ['cuda', 'webgpu', 'cpu'];

export interface SessionOptions {
  /** Providers to try, in order. The first that creates the session wins. */
  providers?: readonly string[];
  /** Intra-op threads (default: onnxruntime's choice). */
  threads?: number;
  /** Fixed sizes for symbolic dimensions (lets the CPU provider plan memory). */
  freeDimensionOverrides?: Record<string, number>;
  /** Called for each provider that failed, with the reason (for the output channel / CLI). */
  onFallback?: (provider: string, reason: string) => void;
  /**
   * WebGPU only: outputs left on the device ('gpu-buffer' tensors) instead of copied back into
   * JavaScript memory, so the next run can take them as inputs without a round trip (the decoder's
   * `present.*` in greedy decoding, docs/vlm.md "WebGPU"). Other providers copy as before.
   */
  deviceOutputs?: readonly string[];
}

export interface LoadedSession {
  session: ort.InferenceSession;
  /** The provider that actually loaded. */
  provider: string;
  /** Providers tried before it, with the error each gave. */
  failures: { provider: string; reason: string }[];
}

/** Called around every `session.run` of the sessions created on this thread. */
export interface RunHooks {
  enter(): void;
  leave(): void;
}

let runHooks: RunHooks | undefined;

/** Installs this thread's run hooks (one set per thread; later calls replace them). */
export function setRunHooks(hooks: RunHooks | undefined): void {
  runHooks = hooks;
}

/** Wraps the session's `run` so the hooks see each run start and end, whatever its outcome. */
function reportRuns(session: ort.InferenceSession): ort.InferenceSession {
  const run = session.run.bind(session) as (...args: unknown[]) => Promise<unknown>;
  const reported = (...args: unknown[]): Promise<unknown> => {
    const hooks = runHooks;
    hooks?.enter();
    let pending: Promise<unknown>;
    try {
      pending = run(...args);
    } catch (err) {
      hooks?.leave();
      throw err;
    }
    return pending.finally(() => hooks?.leave());
  };
  session.run = reported as typeof session.run;
  return session;
}

/** Providers the installed onnxruntime-node knows, and whether their binaries are present. */
export function listProviders(): { name: string; bundled: boolean }[] {
  return onnxruntime()
    .listSupportedBackends()
    .map((b) => ({ name: b.name, bundled: b.bundled }));
}

/**
 * Creates a session from a file path or the model's bytes, trying providers in order.
 * Throws the last error when none loads; an error that is about the model itself (a corrupt or
 * missing file) is thrown at once rather than retried on every provider.
 */
export async function createSession(model: string | Uint8Array, options: SessionOptions = {}): Promise<LoadedSession> {
  const providers = options.providers && options.providers.length > 0 ? options.providers : ['cpu'];
  const failures: { provider: string; reason: string }[] = [];
  let lastError: unknown;
  for (const provider of providers) {
    const so: ort.InferenceSession.SessionOptions = {
      executionProviders: [provider as ort.InferenceSession.ExecutionProviderConfig],
      graphOptimizationLevel: 'all',
    };
    const missing = missingProviderLibrary(provider) ?? softwareOnly(provider, providers);
    if (missing) {
      // Checked before asking onnxruntime, which would print native error lines on stderr.
      failures.push({ provider, reason: missing });
      options.onFallback?.(provider, missing);
      lastError = new Error(missing);
      continue;
    }
    if (options.threads !== undefined) so.intraOpNumThreads = options.threads;
    if (options.freeDimensionOverrides) so.freeDimensionOverrides = options.freeDimensionOverrides;
    if (provider === 'webgpu' && options.deviceOutputs?.length)
      so.preferredOutputLocation = Object.fromEntries(options.deviceOutputs.map((n) => [n, 'gpu-buffer' as const]));
    try {
      const session =
        typeof model === 'string'
          ? await onnxruntime().InferenceSession.create(model, so)
          : await onnxruntime().InferenceSession.create(model, so);
      return { session: reportRuns(session), provider, failures };
    } catch (err) {
      lastError = err;
      const reason = messageOf(err);
      if (provider === 'cpu' || isModelError(reason)) throw err;
      failures.push({ provider, reason });
      options.onFallback?.(provider, reason);
    }
  }
  throw lastError instanceof Error ? lastError : new Error(String(lastError));
}

/**
 * Reasons a provider cannot load, found without asking onnxruntime (which would print native
 * error lines on stderr):
 *  - CUDA and TensorRT need provider libraries that onnxruntime-node's install script downloads
 *    only when asked (`ONNXRUNTIME_NODE_INSTALL=cuda12`; package.json's allowScripts denies it on install);
 *  - WebGPU on Linux runs on Vulkan: without the Vulkan loader (libvulkan.so.1) Dawn prints a
 *    multi-line "Couldn't load Vulkan" warning to stderr and then finds no adapter, so the
 *    loader is looked up first (the dynamic linker's cache, LD_LIBRARY_PATH, the usual folders).
 */
function missingProviderLibrary(provider: string): string | undefined {
  if (provider === 'webgpu') return missingVulkan();
  if (provider !== 'cuda' && provider !== 'tensorrt') return undefined;
  if (process.platform !== 'linux' && process.platform !== 'win32')
    return `${provider} is not available on ${process.platform}`;
  try {
    const root = path.dirname(path.dirname(require.resolve('onnxruntime-node')));
    const dir = path.join(root, 'bin', 'napi-v6', process.platform, process.arch);
    const lib =
      process.platform === 'win32'
        ? `onnxruntime_providers_${provider}.dll`
        : `libonnxruntime_providers_${provider}.so`;
    if (!fs.existsSync(dir) || fs.existsSync(path.join(dir, lib))) return undefined;
    return `the ${provider} provider library (${lib}) is not installed; run ONNXRUNTIME_NODE_INSTALL=cuda12 node node_modules/onnxruntime-node/script/install.js in Folio's folder (needs CUDA 12 and cuDNN)`;
  } catch {
    return undefined;
  }
}

/**
 * WebGPU on a software Vulkan device (SwiftShader) computes the same tokens as a GPU but far
 * slower than the CPU provider (a tiny model's page: minutes instead of seconds), so it is taken
 * only when it is the last provider asked for (`--providers webgpu`, as the tests do); with a
 * provider after it in the list, that one runs instead. So is a Linux machine whose Vulkan
 * drivers have no device (Mesa's drivers installed without the GPU, lavapipe which Dawn
 * refuses): asking onnxruntime would only print Dawn's warnings and fail.
 */
function softwareOnly(provider: string, providers: readonly string[]): string | undefined {
  if (provider !== 'webgpu' || providers.indexOf(provider) === providers.length - 1) return undefined;
  const adapter = webgpuAdapterInfo();
  if (adapter.none) return 'no Vulkan device that Dawn accepts on this machine, so no WebGPU adapter';
  if (adapter.software !== true) return undefined;
  return `the only WebGPU adapter is a software Vulkan device (${adapter.name}), slower than the CPU provider; ask for it alone (--providers webgpu) to use it anyway`;
}

let vulkanChecked: { missing: string | undefined } | undefined;

/** On Linux, why WebGPU cannot run (no Vulkan loader), or undefined when it may. Checked once. */
function missingVulkan(): string | undefined {
  if (process.platform !== 'linux') return undefined;
  if (!vulkanChecked) {
    const lib = 'libvulkan.so.1';
    const dirs = [
      ...(process.env.LD_LIBRARY_PATH ?? '').split(':').filter(Boolean),
      '/usr/lib/x86_64-linux-gnu',
      '/usr/lib/aarch64-linux-gnu',
      '/lib/x86_64-linux-gnu',
      '/lib/aarch64-linux-gnu',
      '/usr/lib64',
      '/lib64',
      '/usr/lib',
      '/lib',
      '/usr/local/lib',
    ];
    let found = dirs.some((d) => fs.existsSync(path.join(d, lib)));
    if (!found) {
      try {
        found = fs.readFileSync('/etc/ld.so.cache').includes(lib);
      } catch {
        // no linker cache: the folders above decide
      }
    }
    vulkanChecked = { missing: found ? undefined : `no Vulkan loader (${lib}) on this machine, so no WebGPU adapter` };
  }
  return vulkanChecked.missing;
}

/**
 * One line for the log: which provider was chosen and why the ones before it were not.
 * `failures` may repeat a provider (one per session); each is said once.
 */
export function providerSummary(chosen: string, failures: readonly { provider: string; reason: string }[]): string {
  const seen = new Map<string, string>();
  for (const f of failures) if (!seen.has(f.provider)) seen.set(f.provider, f.reason.split('\n')[0].slice(0, 200));
  if (seen.size === 0) return `provider ${chosen} (first in the order asked)`;
  return `provider ${chosen}; not used: ${[...seen].map(([p, r]) => `${p} (${r})`).join('; ')}`;
}

/** Errors that no other provider would fix: the file is missing, truncated or not ONNX. */
function isModelError(message: string): boolean {
  return /protobuf parsing failed|No such file|Load model from .* failed|invalid model|ModelProto/i.test(message);
}
