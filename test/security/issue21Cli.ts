/**
 * Running the real `folio` CLI (dist/cli.js) for issue 21's reproductions, with a guard on the
 * child's resident memory: a regression that reads /dev/zero or decodes a huge image is killed
 * at the cap and fails its test, instead of taking the machine's memory with it.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/corpus';

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
  /** Highest resident set size seen, MB (sampled every 50 ms from /proc). */
  peakRssMb: number;
  /** Set when the guard killed the child. */
  killed?: 'memory' | 'time';
  wallMs: number;
}

function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

export function cliPath(): string {
  return join(repoRoot(), 'dist', 'cli.js');
}

export function runCli(
  args: string[],
  opts: { cwd: string; env?: NodeJS.ProcessEnv; maxRssMb?: number; timeoutMs?: number },
): Promise<CliRun> {
  const maxRss = opts.maxRssMb ?? 1500;
  const timeout = opts.timeoutMs ?? 180_000;
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [cliPath(), ...args], {
      cwd: opts.cwd,
      env: { ...process.env, ...opts.env },
    });
    let stdout = '';
    let stderr = '';
    let peak = 0;
    let killed: CliRun['killed'];
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const poll = setInterval(() => {
      const r = rssMb(child.pid!);
      peak = Math.max(peak, r);
      if (r > maxRss && !killed) {
        killed = 'memory';
        child.kill('SIGKILL');
      }
    }, 50);
    const timer = setTimeout(() => {
      if (!killed) killed = 'time';
      child.kill('SIGKILL');
    }, timeout);
    child.on('close', (status) => {
      clearInterval(poll);
      clearTimeout(timer);
      resolve({ status, stdout, stderr, peakRssMb: Math.round(peak), killed, wallMs: Date.now() - started });
    });
  });
}

export function fixture(name: string): string {
  return join(repoRoot(), 'test', 'fixtures', 'security', name);
}
