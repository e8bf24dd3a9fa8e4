/**
 * Repetition-loop guard. Small VLMs sometimes fall into a cycle ("la la la …", the same table row
 * again and again) and would run to the 8192-token bound. The guard watches the generated ids
 * and fires when the tail is periodic: for some period p ≤ maxPeriod, the last
 * max(minSpan, p × minRepeats) tokens each equal the token p positions earlier.
 *
 * Incremental: for every period it keeps the length of the current run of matches, so each new
 * token costs O(maxPeriod). Legitimate repetition (a row of empty table cells `<ecel><ecel>…`)
 * is shorter than the default span; the defaults are set so a 60-column empty OTSL row passes.
 */
export interface LoopGuardOptions {
  /** Longest cycle looked for, in tokens. */
  maxPeriod: number;
  /** Cycles repeated at least this many times… */
  minRepeats: number;
  /** …and covering at least this many tokens. */
  minSpan: number;
}

export const DEFAULT_LOOP_GUARD: LoopGuardOptions = { maxPeriod: 128, minRepeats: 6, minSpan: 96 };

export class LoopGuard {
  private readonly history: number[] = [];
  private readonly runs: Int32Array;
  /** Index in the generated tokens where the detected loop began (set when fired). */
  loopStart = -1;
  period = 0;

  constructor(private readonly opts: LoopGuardOptions = DEFAULT_LOOP_GUARD) {
    this.runs = new Int32Array(opts.maxPeriod + 1);
  }

  /** Adds a token; true when the output is now looping. */
  push(id: number): boolean {
    const h = this.history;
    h.push(id);
    const n = h.length;
    for (let p = 1; p <= this.opts.maxPeriod; p++) {
      if (n - 1 - p < 0) break;
      this.runs[p] = h[n - 1] === h[n - 1 - p] ? this.runs[p] + 1 : 0;
      const span = this.runs[p] + p;
      if (span >= Math.max(this.opts.minSpan, p * this.opts.minRepeats)) {
        this.period = p;
        this.loopStart = n - span;
        return true;
      }
    }
    return false;
  }
}
