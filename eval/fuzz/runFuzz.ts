/**
 * The mutation fuzzer: mutated PDFs sent one after another to ONE real backend process
 * (`dist/server.js --stdio`, through the test client), so a crash or leak in any case shows as
 * the backend dying or hanging. The backend must answer every case (a summary, possibly with
 * page errors, or a protocol error naming the cause) within the time limit and stay alive.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { FolioErrorCodes } from '../../common/protocol';
import { BackendProcess } from '../../test/helpers/backend';
import { mutate, MUTATIONS, type MutationKind } from './mutate';

export type FuzzOutcome = 'converted' | 'partial' | 'clear-error' | 'unclear-error' | 'hang' | 'crash';

export interface FuzzCase {
  index: number;
  source: string;
  kind: MutationKind;
  seed: number;
}

export interface FuzzResult extends FuzzCase {
  outcome: FuzzOutcome;
  note: string;
  detail: string;
  pagesDone: number;
  pageErrors: number;
  ms: number;
}

/** Case i: source i mod n, mutation kind cycling, seed = base + i (fully reproducible). */
export function fuzzCases(sources: string[], count: number, baseSeed: number): FuzzCase[] {
  return Array.from({ length: count }, (_, i) => ({
    index: i,
    source: sources[i % sources.length],
    kind: MUTATIONS[Math.floor(i / sources.length) % MUTATIONS.length],
    seed: baseSeed + i,
  }));
}

const FOLIO_CODES = new Set<number>(Object.values(FolioErrorCodes));

export interface FuzzOptions {
  workDir: string;
  sourceBytes: (path: string) => Buffer;
  timeoutMs: number;
  onResult?: (r: FuzzResult) => void;
}

export async function runFuzz(cases: FuzzCase[], o: FuzzOptions): Promise<{ results: FuzzResult[]; restarts: number }> {
  mkdirSync(o.workDir, { recursive: true });
  let backend = await BackendProcess.start();
  // One exit promise per backend process (not one listener per case).
  const exitOf = (b: BackendProcess) =>
    new Promise<'died'>((res) => (b.exitCode !== null ? res('died') : b.child.once('exit', () => res('died'))));
  let died = exitOf(backend);
  let restarts = 0;
  const results: FuzzResult[] = [];
  try {
    for (const c of cases) {
      const m = mutate(o.sourceBytes(c.source), c.kind, c.seed);
      const file = join(o.workDir, `case${c.index}-${c.kind}-${basename(c.source).replace(/[^\w.-]+/g, '_')}`);
      writeFileSync(file, m.bytes);
      const t0 = performance.now();
      const run = backend.convert({ uri: file, options: { renderImages: false } });
      // A request left behind by a hang or crash rejects later; that is recorded, not thrown.
      run.result.catch(() => undefined);
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((res) => (timer = setTimeout(() => res('timeout'), o.timeoutMs)));
      const r: FuzzResult = {
        ...c,
        outcome: 'converted',
        note: m.note,
        detail: '',
        pagesDone: 0,
        pageErrors: 0,
        ms: 0,
      };
      try {
        const v = await Promise.race([run.result, timeout, died]);
        if (v === 'timeout') {
          r.outcome = 'hang';
          r.detail = `no answer in ${o.timeoutMs / 1000} s`;
        } else if (v === 'died') {
          r.outcome = 'crash';
          r.detail = `backend exited (${backend.exitCode}): ${backend.stderr.trim().split('\n').slice(-8).join('\n')}`;
        } else {
          r.pagesDone = v.pagesDone.length;
          r.pageErrors = v.pageErrors.length;
          r.outcome = v.pageErrors.length > 0 ? 'partial' : 'converted';
          if (v.pageErrors.length)
            r.detail = v.pageErrors
              .map((e) => `page ${e.page}: ${e.message}`)
              .slice(0, 3)
              .join('; ');
        }
      } catch (e) {
        const code = (e as { code?: number }).code;
        const msg = e instanceof Error ? e.message : String(e);
        r.outcome = typeof code === 'number' && FOLIO_CODES.has(code) ? 'clear-error' : 'unclear-error';
        r.detail = `${code ?? ''} ${msg}`.trim();
      } finally {
        clearTimeout(timer);
      }
      r.ms = performance.now() - t0;
      // The backend must still be alive; a hung one is replaced so later cases still run.
      if (r.outcome === 'hang') run.cancel();
      if (backend.exitCode !== null || r.outcome === 'hang') {
        if (backend.exitCode === null) backend.child.kill('SIGKILL');
        if (r.outcome !== 'hang' && r.outcome !== 'crash') {
          r.outcome = 'crash';
          r.detail = `backend exited after answering: ${backend.stderr.trim().split('\n').slice(-4).join(' | ')}`;
        }
        backend = await BackendProcess.start();
        died = exitOf(backend);
        restarts++;
      }
      results.push(r);
      o.onResult?.(r);
    }
  } finally {
    await backend.stop();
  }
  return { results, restarts };
}
