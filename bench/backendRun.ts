/**
 * One conversion through the real backend process with the figures the benchmark wants: time
 * to the first streamed page, pages received over time, total time, and the backend's peak
 * resident memory (VmHWM of the process, which holds its worker threads too).
 */
import { readFileSync } from 'node:fs';
import { BackendProcess } from '../test/helpers/backend';

export interface StreamFigures {
  pages: number;
  pageErrors: number;
  firstPageMs: number;
  totalMs: number;
  /** Pages received by the time half the total time had passed (streaming, not all at the end). */
  pagesAtHalfTime: number;
  /** Arrival time of each page, ms from the request. */
  arrivals: number[];
  /** Backend process peak RSS (VmHWM), bytes. */
  peakRss: number;
  /** Pages arrived in increasing page order. */
  inOrder: boolean;
}

export function processPeakRss(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

export async function convertThroughBackend(
  file: string,
  timeoutMs: number,
  backend?: BackendProcess,
): Promise<StreamFigures> {
  const b = backend ?? (await BackendProcess.start());
  const pid = b.child.pid as number;
  let peak = processPeakRss(pid);
  const poll = setInterval(() => (peak = Math.max(peak, processPeakRss(pid))), 100);
  const t0 = Date.now();
  const run = b.convert({ uri: file, options: { renderImages: false } });
  let timer: NodeJS.Timeout | undefined;
  try {
    const summary = await Promise.race([
      run.result,
      new Promise<never>(
        (_, rej) =>
          (timer = setTimeout(() => rej(new Error(`no answer for ${file} within ${timeoutMs / 1000} s`)), timeoutMs)),
      ),
    ]);
    const totalMs = Date.now() - t0;
    peak = Math.max(peak, processPeakRss(pid));
    const arrivals = run.pages.map((p) => p.at - t0);
    const order = run.pages.map((p) => p.page.page);
    return {
      pages: summary.pagesDone.length,
      pageErrors: summary.pageErrors.length,
      firstPageMs: arrivals.length ? arrivals[0] : NaN,
      totalMs,
      pagesAtHalfTime: arrivals.filter((a) => a <= totalMs / 2).length,
      arrivals,
      peakRss: peak,
      inOrder: order.every((p, i) => i === 0 || p > order[i - 1]),
    };
  } finally {
    clearTimeout(timer);
    clearInterval(poll);
    if (!backend) await b.stop();
  }
}
