/**
 * Peers that run as one helper process over a list of files (a Node or Python one-liner),
 * writing each output to `<workDir>/<index>.txt` and printing one JSON line per file
 * `{"i": index, "ms": …, "error": …}`. One process per chunk of files keeps start-up cost
 * out of the per-page figures; a chunk that times out is retried file by file so one hanging
 * file only loses itself.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mapLimit, runProcess } from '../run';
import type { BatchResult, PeerOutput } from './types';

export interface BatchCommand {
  cmd: string;
  /** Arguments before the list: the helper gets `<workDir> <listFile>`. */
  args: string[];
  cwd?: string;
}

interface Line {
  i: number;
  ms: number;
  error?: string;
}

async function runChunk(c: BatchCommand, pdfs: { pdf: string; i: number }[], workDir: string, timeoutMs: number) {
  const list = join(workDir, `list-${pdfs[0].i}-${pdfs.length}.json`);
  writeFileSync(list, JSON.stringify(pdfs.map((p) => [p.i, p.pdf])));
  return runProcess(c.cmd, [...c.args, workDir, list], { timeoutMs, cwd: c.cwd });
}

export async function runBatch(
  c: BatchCommand,
  pdfs: string[],
  workDir: string,
  opts: { jobs: number; timeoutMs: number },
): Promise<BatchResult> {
  mkdirSync(workDir, { recursive: true });
  const outputs = new Map<string, PeerOutput>();
  let peakRss = 0;
  const t0 = performance.now();
  const indexed = pdfs.map((pdf, i) => ({ pdf, i }));
  const chunks: (typeof indexed)[] = Array.from({ length: Math.min(opts.jobs, pdfs.length) }, () => []);
  indexed.forEach((p, k) => chunks[k % chunks.length].push(p));
  const retry: typeof indexed = [];
  await mapLimit(chunks, opts.jobs, async (chunk) => {
    const r = await runChunk(c, chunk, workDir, opts.timeoutMs * chunk.length);
    peakRss = Math.max(peakRss, r.peakRss);
    const seen = new Map<number, Line>();
    for (const l of r.stdout.split('\n')) {
      if (!l.startsWith('{')) continue;
      try {
        const x = JSON.parse(l) as Line;
        seen.set(x.i, x);
      } catch {
        /* a partial line at a kill */
      }
    }
    for (const p of chunk) {
      const x = seen.get(p.i);
      if (!x) {
        if (r.timedOut) retry.push(p);
        else
          outputs.set(p.pdf, {
            error: `helper exited (${r.code ?? r.signal}) before this file: ${r.stderr.trim().split('\n').pop() ?? ''}`,
            ms: 0,
          });
        continue;
      }
      const out = join(workDir, `${p.i}.txt`);
      outputs.set(
        p.pdf,
        x.error || !existsSync(out)
          ? { error: x.error ?? 'no output', ms: x.ms }
          : { text: readFileSync(out, 'utf8'), ms: x.ms },
      );
    }
  });
  await mapLimit(retry, opts.jobs, async (p) => {
    const r = await runChunk(c, [p], workDir, opts.timeoutMs);
    const out = join(workDir, `${p.i}.txt`);
    const ok = r.code === 0 && !r.timedOut && existsSync(out) && !/"error"/.test(r.stdout);
    outputs.set(
      p.pdf,
      ok
        ? { text: readFileSync(out, 'utf8'), ms: r.ms }
        : {
            error: r.timedOut ? 'timeout' : r.stdout.trim() || r.stderr.trim().split('\n').pop() || 'failed',
            ms: r.ms,
          },
    );
  });
  return { outputs, wallMs: performance.now() - t0, peakRss };
}
