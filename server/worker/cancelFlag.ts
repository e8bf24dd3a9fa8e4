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
 * aborts the whole process (SIGABRT) when its thread is torn down mid-run.
 */

export function createCancelBuffer(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(4));
}

export function requestCancel(flag: Int32Array, requestId: number): void {
  Atomics.store(flag, 0, requestId);
}

/** An AbortSignal-compatible view of the shared flag for one request (only the polling API). */
export function sharedAbortSignal(flag: Int32Array, requestId: number): AbortSignal {
  const isAborted = () => Atomics.load(flag, 0) === requestId;
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
