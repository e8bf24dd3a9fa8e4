/**
 * How a CLI run on one file ended, for the robustness sweep (issue 4):
 * - converted: exit 0 and an output file;
 * - partial: an output file but some pages failed (non-zero exit, no failure line);
 * - clear-error: non-zero exit with a `folio: <file>: <reason>` line whose reason names the
 *   cause (encrypted/password, damaged, not a PDF, empty, too large, unsupported …);
 * - unclear-error: such a line whose reason names no cause (an internal message leaking out);
 * - crash: killed by a signal, a stack trace or fatal V8 message on stderr, or a failure
 *   without the `folio:` line;
 * - timeout: the per-file time limit ran out (the process group was killed).
 */
export type Outcome = 'converted' | 'partial' | 'clear-error' | 'unclear-error' | 'crash' | 'timeout';

export const OUTCOMES: Outcome[] = ['converted', 'partial', 'clear-error', 'unclear-error', 'crash', 'timeout'];

export interface RunFacts {
  code: number | null;
  signal: string | null;
  timedOut: boolean;
  stderr: string;
  stdout: string;
  outputWritten: boolean;
}

/** Words that tell a user what is wrong with the file and so what to do. */
const CAUSE =
  /encrypt|password|damaged|corrupt|broken|truncat|malformed|invalid|not a pdf|not a valid|no pdf header|empty|zero bytes|0 bytes|no pages|0 pages|too large|too big|exceeds|limit|unsupported|not supported|cannot be read|could not be read|unreadable|missing|not found|no such file|permission|xref|startxref|trailer/i;
/** Messages of JavaScript's own exceptions: an engine bug surfacing as the reason. */
const INTERNAL =
  /cannot read propert|is not a function|is not defined|is not iterable|of undefined|of null|maximum call stack|unexpected token|typeerror|rangeerror|referenceerror|assertion failed/i;
const STACK = /^\s+at .+(:\d+:\d+\)?|\(native\)|\(<anonymous>\))$/m;
const FATAL = /FATAL ERROR|Segmentation fault|Aborted|core dumped|heap out of memory|Allocation failed/;

export interface Classified {
  outcome: Outcome;
  /** The `folio:` reason, or what marked the crash. */
  reason: string;
}

/**
 * The `<reason>` of the last `folio: <file>: <reason>` line naming a PDF: per-page warnings use
 * the same prefix while converting, the failure line comes when the file is given up.
 */
export function failureReason(stderr: string): string | undefined {
  const all = [...stderr.matchAll(/^folio: .+?\.pdf: (.*)$/gim)];
  return all.length ? all[all.length - 1][1].trim() : undefined;
}

export function classify(r: RunFacts): Classified {
  if (r.timedOut) return { outcome: 'timeout', reason: 'time limit reached; process group killed' };
  if (r.signal) return { outcome: 'crash', reason: `killed by ${r.signal}` };
  const fatal = FATAL.exec(r.stderr);
  if (fatal)
    return {
      outcome: 'crash',
      reason:
        r.stderr
          .split('\n')
          .find((l) => FATAL.test(l))
          ?.trim() ?? fatal[0],
    };
  if (STACK.test(r.stderr)) {
    const first = r.stderr.split('\n').find((l) => l.trim() !== '' && !/^\s+at /.test(l)) ?? 'stack trace';
    return { outcome: 'crash', reason: `stack trace: ${first.trim()}` };
  }
  const reason = failureReason(r.stderr);
  if (r.code === 0) {
    return r.outputWritten
      ? { outcome: 'converted', reason: '' }
      : { outcome: 'crash', reason: 'exit 0 but no output written' };
  }
  if (reason !== undefined) {
    if (INTERNAL.test(reason) || !CAUSE.test(reason)) return { outcome: 'unclear-error', reason };
    return { outcome: 'clear-error', reason };
  }
  if (r.outputWritten)
    return { outcome: 'partial', reason: (r.stdout.match(/\d+ page\(s\) failed/) ?? ['pages failed'])[0] };
  const last = r.stderr.trim().split('\n').pop() ?? '';
  return {
    outcome: 'crash',
    reason: `exit ${r.code} without a "folio: <file>: <reason>" line${last ? `: ${last.slice(0, 200)}` : ''}`,
  };
}
