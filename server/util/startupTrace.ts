/**
 * Where a conversion's start-up goes, for `npm run bench -- --parts startup` (issue 22): with
 * `FOLIO_TRACE_STARTUP=1`, each mark writes `folio-trace <thread> <epoch ms> <name>` to stderr.
 * Epoch milliseconds (high resolution) line the CLI's thread and its page worker up on one clock,
 * the bench's own included. Without the variable a mark costs one property read.
 */
import { threadId } from 'node:worker_threads';

const on = process.env.FOLIO_TRACE_STARTUP === '1';

export function startupMark(name: string): void {
  if (!on) return;
  const epochMs = performance.timeOrigin + performance.now();
  process.stderr.write(`folio-trace ${threadId} ${epochMs.toFixed(1)} ${name}\n`);
}
