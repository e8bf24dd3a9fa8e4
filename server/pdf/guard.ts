/**
 * Marks the stretches of a page worker's time spent inside pdf.js.
 *
 * pdf.js work is pure JavaScript, run by the worker thread itself (in Node, pdf.js's "worker" is
 * a fake one on the same thread): a content stream that inflates to hundreds of megabytes is
 * decoded and lexed in one long run of microtasks, during which the thread reads no message and
 * pdf.js checks no flag of ours. Two things bound it (server/worker/pdfBudget.ts):
 * - the bytes pdf.js allocates for typed arrays (decoded streams, images) are counted, and an
 *   allocation past the page's memory budget throws before the memory is taken;
 * - the pool may terminate the thread while it is inside pdf.js — safe there, unlike during an
 *   onnxruntime run (SIGABRT) or a sharp/canvas encode on libuv threads, which stay outside.
 *
 * This module only brackets the calls; the page worker installs what happens on entry and exit.
 * Outside a worker (tests calling the pipeline directly) the hooks do nothing.
 */

export interface PdfjsHooks {
  enter(): void;
  /** Called after the work settled; may throw (the budget was exceeded). */
  leave(): void;
}

let hooks: PdfjsHooks | undefined;
let depth = 0;

export function setPdfjsHooks(h: PdfjsHooks | undefined): void {
  hooks = h;
}

/** Runs one pdf.js call (getDocument, getPage, getOperatorList, getTextContent, render) under the guard. */
export async function pdfjsWork<T>(fn: () => Promise<T>): Promise<T> {
  if (depth++ === 0) hooks?.enter();
  try {
    return await fn();
  } finally {
    // `leave` throws when the budget was exceeded: that error replaces pdf.js's own, which is
    // often vague, or swallowed (pdf.js skips a broken operator and goes on).
    if (--depth === 0) hooks?.leave();
  }
}
