/**
 * Cancellation that reaches a worker thread while it is busy.
 *
 * A page worker spends most of a scanned page inside onnxruntime's `session.run`, which blocks
 * its event loop, so a "cancel" message would only be read after the page is done. Instead the
 * pool and the worker share one Int32Array: the pool writes the id of the request to stop, and
 * the worker's signal reads it synchronously wherever the engine checks `signal.aborted` /
 * `throwIfAborted()` (between OCR batches, between pipeline stages).
 *
 * Terminating the worker instead is not an option while native code runs in it: onnxruntime
 * aborts the whole process (SIGABRT) when its thread is torn down mid-run. Inside pdf.js (pure
 * JavaScript, which checks no flag of ours) it is safe, so the same buffer carries the worker's
 * phase: the worker marks when it is inside pdf.js (server/pdf/guard.ts), and the pool may
 * terminate it only after claiming that phase with a compare-and-swap, which the worker's own
 * exit from pdf.js also goes through — so a thread is never torn down once it has left pdf.js.
 */

/** Slot 0: id of the request to stop. Slot 1: the worker's phase. */
const CANCEL = 0;
const PHASE = 1;
export const OUTSIDE_PDFJS = 0;
export const INSIDE_PDFJS = 1;
export const TERMINATING = 2;

export function createCancelBuffer(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(8));
}

export function requestCancel(flag: Int32Array, requestId: number): void {
  Atomics.store(flag, CANCEL, requestId);
}

/** Worker side: entering pdf.js. False when the pool already claimed the thread for termination. */
export function enterPdfjs(flag: Int32Array): boolean {
  return Atomics.compareExchange(flag, PHASE, OUTSIDE_PDFJS, INSIDE_PDFJS) !== TERMINATING;
}

/** Worker side: leaving pdf.js. False when the pool claimed the thread first (it is being terminated). */
export function leavePdfjs(flag: Int32Array): boolean {
  return Atomics.compareExchange(flag, PHASE, INSIDE_PDFJS, OUTSIDE_PDFJS) !== TERMINATING;
}

/** Worker side: the pool is terminating this thread; wait for it without running anything else. */
export function awaitTermination(flag: Int32Array): never {
  for (;;) Atomics.wait(flag, PHASE, TERMINATING, 1000);
}

/** Pool side: claims the thread for termination; true only when it is inside pdf.js right now. */
export function claimTermination(flag: Int32Array): boolean {
  return Atomics.compareExchange(flag, PHASE, INSIDE_PDFJS, TERMINATING) === INSIDE_PDFJS;
}

/** An AbortSignal-compatible view of the shared flag for one request (only the polling API). */
export function sharedAbortSignal(flag: Int32Array, requestId: number): AbortSignal {
  const isAborted = () => Atomics.load(flag, CANCEL) === requestId;
  const signal = {
    get aborted() {
      return isAborted();
    },
    get reason() {
      return isAborted() ? new DOMException('cancelled', 'AbortError') : undefined;
    },
    throwIfAborted() {
      if (isAborted()) throw new DOMException('cancelled', 'AbortError');
    },
    onabort: null,
    // Listeners would never fire while the thread is blocked; code must poll `aborted`.
    addEventListener() {},
    removeEventListener() {},
    dispatchEvent() {
      return false;
    },
  };
  return signal as unknown as AbortSignal;
}
