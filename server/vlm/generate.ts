/**
 * Greedy decoding of a batch of rows on a `DecoderSession`: argmax per row, stop per row on a
 * stop token, the token bound or the loop guard, finished rows dropped from the batch (so the
 * cost follows the rows still running), a cancel signal checked between steps and a streamer
 * called with each new token.
 */
import type { DecoderSession } from './decoder';
import { DEFAULT_LOOP_GUARD, LoopGuard, type LoopGuardOptions } from '../util/loopGuard';
import { CancelledError } from '../errors';

export type StopReason = 'stop' | 'max' | 'loop';

export interface GenerateOptions {
  maxNewTokens: number;
  stopIds: ReadonlySet<number>;
  /** Loop-guard settings; `false` turns it off. */
  loopGuard?: LoopGuardOptions | false;
  /** Anything with `aborted` (an AbortSignal, or the worker's shared-memory flag). */
  signal?: { readonly aborted: boolean };
  /** Streamer: called with each generated token of each row (stop tokens included). */
  onToken?: (row: number, id: number) => void;
}

export interface GenerateResult {
  /** Generated ids per row (the stop token included when one ended the row). */
  tokens: number[][];
  reasons: StopReason[];
  /** Per row: index in `tokens` where a detected loop began (-1 when none). */
  loopStart: number[];
  steps: number;
}

export function argmax(v: Float32Array): number {
  let best = 0;
  let bv = -Infinity;
  for (let i = 0; i < v.length; i++) {
    if (v[i] > bv) {
      bv = v[i];
      best = i;
    }
  }
  return best;
}

/** `first[r]` is row r's logits after its prompt (from `prefill`). */
export async function greedyGenerate(
  session: DecoderSession,
  first: Float32Array[],
  opts: GenerateOptions,
): Promise<GenerateResult> {
  const n = first.length;
  const tokens: number[][] = first.map(() => []);
  const reasons: StopReason[] = new Array(n).fill('max');
  const loopStart: number[] = new Array(n).fill(-1);
  const guards = first.map(() =>
    opts.loopGuard === false ? undefined : new LoopGuard(opts.loopGuard ?? DEFAULT_LOOP_GUARD),
  );
  /** Batch row → original row. */
  let active = first.map((_, i) => i);
  /**
   * Batch rows that finished but stay in a cache kept on the device (`cacheOnDevice`: it cannot
   * drop rows there): they step on padding, their logits unread. Each row attends only to its own
   * cache, so the rows still running are unaffected.
   */
  const idle = new Set<number>();
  let logits = first;
  let steps = 0;
  while (active.length > idle.size) {
    if (opts.signal?.aborted) throw new CancelledError('the VLM generation');
    const keep: number[] = [];
    const next: number[][] = [];
    active.forEach((row, b) => {
      if (idle.has(b)) return;
      const id = argmax(logits[b]);
      tokens[row].push(id);
      opts.onToken?.(row, id);
      if (opts.stopIds.has(id)) reasons[row] = 'stop';
      else if (guards[row]?.push(id)) {
        reasons[row] = 'loop';
        loopStart[row] = guards[row]!.loopStart;
      } else if (tokens[row].length >= opts.maxNewTokens) reasons[row] = 'max';
      else {
        keep.push(b);
        next.push([id]);
      }
    });
    if (keep.length === 0) break;
    let feed = next;
    if (session.cacheOnDevice) {
      active.forEach((_, b) => {
        if (!keep.includes(b)) idle.add(b);
      });
      feed = active.map((_, b) => (idle.has(b) ? [session.padToken] : next[keep.indexOf(b)]));
    } else {
      if (keep.length !== active.length) session.selectRows(keep);
      active = keep.map((b) => active[b]);
    }
    const out = await session.step(feed);
    logits = out.map((r) => r[0]);
    steps++;
  }
  return { tokens, reasons, loopStart, steps };
}
