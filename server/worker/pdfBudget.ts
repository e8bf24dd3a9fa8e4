/**
 * The page memory budget, enforced inside a page worker.
 *
 * Decoded PDF streams and images live in ArrayBuffers, outside V8's heap, so the worker's heap
 * limit (`resourceLimits`) does not bound them: a 400 KB file whose content stream inflates to
 * 400 MB took ~1 GB. pdf.js inflates Flate streams with the platform's `DecompressionStream`
 * (native zlib, chunk by chunk) and allocates the rest with `new Uint8Array(n)` & co., all looked
 * up on the global object at each call, so the worker replaces those with counting versions: a
 * DecompressionStream whose output passes through a counting transform, and typed-array
 * constructors behind proxies (instances stay ordinary typed arrays). While a request is inside
 * pdf.js (server/pdf/guard.ts)
 * every allocation is added to the request's total; the one that would cross the budget throws
 * instead of allocating, and so does every later one, so pdf.js unwinds at once. pdf.js swallows
 * many errors and returns a partial result, so on leaving pdf.js the guard throws the budget
 * error itself: the page fails with a message that names the limit and the setting.
 *
 * Counted: what pdf.js asks for during one call (operator list, text content, render, open),
 * cumulatively within it (a growing decode buffer counts each of its doublings, ~2× the
 * stream's size); pdf.js drops a page's decoded streams between calls, so each call starts from
 * zero, and the request fails once one call crossed the budget. Not counted: native memory of
 * the canvas, onnxruntime and sharp — bounded by the render pixel cap (server/pdf/render.ts).
 */
import { FolioError } from '../errors';
import { FolioErrorCodes } from '../../common/protocol';
import { setPdfjsHooks } from '../pdf/guard';
import { awaitTermination, enterPdfjs, leavePdfjs } from './cancelFlag';

const TYPED_ARRAYS = [
  'Int8Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Int16Array',
  'Uint16Array',
  'Int32Array',
  'Uint32Array',
  'Float32Array',
  'Float64Array',
  'BigInt64Array',
  'BigUint64Array',
] as const;

const meter = { active: false, limit: Infinity, used: 0, exceeded: false };
const OriginalArrayBuffer = ArrayBuffer;
const OriginalSharedArrayBuffer = SharedArrayBuffer;

function budgetError(): FolioError {
  const mb = Math.round(meter.limit / (1024 * 1024));
  return new FolioError(
    FolioErrorCodes.TooLarge,
    `decoding this page needs more than its memory budget of ${mb} MB (a stream that inflates to an enormous size, or huge images); the page was skipped. If the file is trusted, raise the limit with --max-page-memory or the folio.limits.pageMemoryMb setting`,
  );
}

function count(bytes: number): void {
  if (!meter.active || bytes <= 0) return;
  if (meter.exceeded) throw new RangeError('page memory budget exceeded');
  meter.used += bytes;
  if (meter.used > meter.limit) {
    meter.exceeded = true;
    throw new RangeError('page memory budget exceeded');
  }
}

/** Bytes a constructor call allocates: `new T(n)` and `new T(arrayLike)` do, views on a buffer do not. */
function bytesOf(args: unknown[], bytesPerElement: number): number {
  const a = args[0];
  if (typeof a === 'number') return a * bytesPerElement;
  if (a === null || typeof a !== 'object' || a instanceof OriginalArrayBuffer || a instanceof OriginalSharedArrayBuffer)
    return 0;
  const length = (a as { length?: unknown }).length;
  return typeof length === 'number' ? length * bytesPerElement : 0;
}

let installed = false;

/** Installs the counting constructors and the pdf.js hooks in this (worker) thread. */
export function installPdfBudget(flag: Int32Array): void {
  if (!installed) {
    installed = true;
    const g = globalThis as unknown as Record<string, unknown>;
    for (const name of TYPED_ARRAYS) {
      const Original = g[name] as { new (...a: unknown[]): unknown; BYTES_PER_ELEMENT: number };
      g[name] = new Proxy(Original, {
        construct(target, args, newTarget) {
          count(bytesOf(args, target.BYTES_PER_ELEMENT));
          return Reflect.construct(target, args, newTarget) as object;
        },
      });
    }
    const NativeDecompressionStream = g.DecompressionStream as typeof DecompressionStream | undefined;
    if (NativeDecompressionStream) {
      // Same interface; the decompressed chunks are counted as they arrive, and an error from
      // the count cancels the native inflater (pdf.js then tries its JS inflater, which hits
      // the exhausted budget at its first allocation).
      g.DecompressionStream = class MeteredDecompressionStream {
        readonly readable: ReadableStream<Uint8Array>;
        readonly writable: WritableStream<BufferSource>;
        constructor(format: CompressionFormat) {
          const inner = new NativeDecompressionStream!(format);
          this.writable = inner.writable;
          this.readable = inner.readable.pipeThrough(
            new TransformStream<Uint8Array, Uint8Array>({
              transform(chunk, controller) {
                count(chunk.byteLength);
                controller.enqueue(chunk);
              },
            }),
          );
        }
      };
    }
    g.ArrayBuffer = new Proxy(OriginalArrayBuffer, {
      construct(target, args, newTarget) {
        count(typeof args[0] === 'number' ? args[0] : 0);
        return Reflect.construct(target, args, newTarget) as object;
      },
    });
  }
  setPdfjsHooks({
    enter() {
      if (!enterPdfjs(flag)) awaitTermination(flag);
      meter.used = 0;
      meter.active = true;
    },
    leave() {
      meter.active = false;
      if (!leavePdfjs(flag)) awaitTermination(flag);
      if (meter.exceeded) throw budgetError();
    },
  });
}

/** Starts a request's count with its budget (bytes; Infinity = none). */
export function beginBudget(limitBytes: number): void {
  meter.limit = limitBytes > 0 ? limitBytes : Infinity;
  meter.used = 0;
  meter.exceeded = false;
}

/** Bytes counted for the current request so far (for measurements). */
export function budgetUsed(): number {
  return meter.used;
}
