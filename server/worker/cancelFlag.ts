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
 * onnxruntime runs are counted in the same word (server/onnx/runtime.ts's run hooks, installed
 * by the page worker): even a request past its time limit, which is terminated wherever it is,
 * waits for the run in flight to return first.
 */

/**
 * Slot 0: id of the request to stop. Slot 1: the worker's phase — bit 0 set while inside pdf.js,
 * the bits above it count onnxruntime runs in flight (`session.run` of OCR), and TERMINATING
 * (-1) once the pool has claimed the thread. A run in flight is native work on the thread's
 * behalf: tearing the thread down then aborts the whole process (SIGABRT), so no claim succeeds
 * while the count is above zero, and a worker that finds the thread claimed never starts one.
 */
const CANCEL = 0;
const PHASE = 1;
const PDFJS_BIT = 1;
const NATIVE_ONE = 2;
export const TERMINATING = -1;

export function createCancelBuffer(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(8));
}

export function requestCancel(flag: Int32Array, requestId: number): void {
  Atomics.store(flag, CANCEL, requestId);
}

/** Applies `next` to the phase atomically; false (nothing changed) once the thread is claimed. */
function update(flag: Int32Array, next: (phase: number) => number): boolean {
  for (;;) {
    const v = Atomics.load(flag, PHASE);
    if (v === TERMINATING) return false;
    if (Atomics.compareExchange(flag, PHASE, v, next(v)) === v) return true;
  }
}

/** Worker side: entering pdf.js. False when the pool already claimed the thread for termination. */
export function enterPdfjs(flag: Int32Array): boolean {
  return update(flag, (v) => v | PDFJS_BIT);
}

/** Worker side: leaving pdf.js. False when the pool claimed the thread first (it is being terminated). */
export function leavePdfjs(flag: Int32Array): boolean {
  return update(flag, (v) => v & ~PDFJS_BIT);
}

/** Worker side: an onnxruntime run starts. False when the pool already claimed the thread. */
export function enterNative(flag: Int32Array): boolean {
  return update(flag, (v) => v + NATIVE_ONE);
}

/** Worker side: an onnxruntime run ended (the pool cannot claim the thread while one is in flight). */
export function leaveNative(flag: Int32Array): void {
  update(flag, (v) => Math.max(0, v - NATIVE_ONE));
}

/** Worker side: the pool is terminating this thread; wait for it without running anything else. */
export function awaitTermination(flag: Int32Array): never {
  for (;;) Atomics.wait(flag, PHASE, TERMINATING, 1000);
}

/** Pool side, for a cancel: claims the thread only while it is inside pdf.js and nothing native runs. */
export function claimTermination(flag: Int32Array): boolean {
  return Atomics.compareExchange(flag, PHASE, PDFJS_BIT, TERMINATING) === PDFJS_BIT;
}

/**
 * Pool side, for a request past its time limit: claims the thread wherever it is (a JavaScript
 * loop of ours, or pdf.js) unless an onnxruntime run is in flight; the caller retries until it
 * succeeds, which is as soon as the run returns.
 */
export function claimForcedTermination(flag: Int32Array): boolean {
  for (;;) {
    const v = Atomics.load(flag, PHASE);
    if (v === TERMINATING) return true;
    if (v >= NATIVE_ONE) return false;
    if (Atomics.compareExchange(flag, PHASE, v, TERMINATING) === v) return true;
  }
}

/** Whether the thread is inside pdf.js now (tests and diagnostics). */
export function inPdfjs(flag: Int32Array): boolean {
  const v = Atomics.load(flag, PHASE);
  return v !== TERMINATING && (v & PDFJS_BIT) !== 0;
}

/** The number of onnxruntime runs in flight on the thread (tests and diagnostics). */
export function nativeRuns(flag: Int32Array): number {
  const v = Atomics.load(flag, PHASE);
  return v === TERMINATING ? 0 : v >> 1;
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
