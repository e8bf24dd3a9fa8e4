/**
 * Folio through its command line (`dist/cli.js convert … -o <dir>/ --jobs N`), the way a user
 * runs it: one CLI call per batch of files, so the worker pool's start-up is paid once.
 * Outputs are named `<name>.md` in the folder; files whose names collide go to separate calls.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { runProcess, type RunResult } from '../run';
import type { BatchResult, Peer, PeerOutput } from './types';

export function cliPath(repo: string): string {
  return join(repo, 'dist', 'cli.js');
}

export interface FolioCliOptions {
  /** Extra CLI arguments (e.g. `--format json`). */
  extraArgs?: string[];
  /** Output extension written by the CLI for the chosen format. */
  ext?: string;
}

/** Split files into groups in which every output name is unique. */
export function groupsWithUniqueNames(pdfs: string[]): string[][] {
  const groups: { names: Set<string>; files: string[] }[] = [];
  for (const pdf of pdfs) {
    const name = basename(pdf).replace(/\.pdf$/i, '');
    let g = groups.find((x) => !x.names.has(name));
    if (!g) groups.push((g = { names: new Set(), files: [] }));
    g.names.add(name);
    g.files.push(pdf);
  }
  return groups.map((g) => g.files);
}

/** `folio: <file>: <reason>` lines of a CLI run, by the file path as the CLI printed it. */
export function failureLines(stderr: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const line of stderr.split('\n')) {
    const x = /^folio: (.+?\.pdf): (.*)$/i.exec(line);
    if (x) m.set(x[1], x[2]);
  }
  return m;
}

export async function runFolioCli(
  repo: string,
  pdfs: string[],
  outDir: string,
  jobs: number,
  timeoutMs: number,
  extraArgs: string[] = [],
): Promise<RunResult> {
  mkdirSync(outDir, { recursive: true });
  return runProcess(
    process.execPath,
    [cliPath(repo), 'convert', ...pdfs, '-o', outDir + '/', '--jobs', String(jobs), '-q', ...extraArgs],
    {
      timeoutMs,
      cwd: repo,
    },
  );
}

export function folioPeer(repo: string, o: FolioCliOptions = {}): Peer {
  const ext = o.ext ?? '.md';
  return {
    name: 'Folio',
    format: 'markdown',
    unavailable: () =>
      existsSync(cliPath(repo)) ? undefined : `${cliPath(repo)} is missing: run "node esbuild.mjs" first`,
    async convertAll(pdfs, workDir, opts): Promise<BatchResult> {
      const outputs = new Map<string, PeerOutput>();
      let peakRss = 0;
      const t0 = performance.now();
      let g = 0;
      for (const group of groupsWithUniqueNames(pdfs)) {
        const dir = join(workDir, `g${g++}`);
        const r = await runFolioCli(repo, group, dir, opts.jobs, opts.timeoutMs * group.length, o.extraArgs);
        peakRss = Math.max(peakRss, r.peakRss);
        const failed = failureLines(r.stderr);
        const share = r.ms / group.length;
        for (const pdf of group) {
          const out = join(dir, basename(pdf).replace(/\.pdf$/i, '') + ext);
          const reason = failed.get(relative(repo, pdf)) ?? failed.get(pdf);
          if (existsSync(out)) outputs.set(pdf, { text: readFileSync(out, 'utf8'), ms: share, error: reason });
          else
            outputs.set(pdf, {
              error:
                reason ??
                (r.timedOut
                  ? 'timeout'
                  : `no output (exit ${r.code ?? r.signal}): ${r.stderr.trim().split('\n').slice(-1)[0] ?? ''}`),
              ms: share,
            });
        }
      }
      return { outputs, wallMs: performance.now() - t0, peakRss };
    },
  };
}
