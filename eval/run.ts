/**
 * Run a child process with a time limit, in its own process group so a timeout kills
 * everything it started (workers, helpers), and measure its peak resident memory by polling
 * VmHWM in /proc (Linux; the high-water mark survives between polls, so a short spike counts).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  ms: number;
  /** Peak RSS in bytes of the child process (not its children), 0 when unknown. */
  peakRss: number;
}

export interface RunOptions {
  timeoutMs: number;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Keep at most this many characters of stdout/stderr (the rest is dropped). */
  maxOutput?: number;
  /** Called with each stdout chunk as it arrives (streaming consumers). */
  onStdout?: (chunk: string) => void;
}

function vmHwm(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

export function runProcess(cmd: string, args: string[], opts: RunOptions): Promise<RunResult> {
  const max = opts.maxOutput ?? 4_000_000;
  return new Promise((resolvePromise) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, {
      cwd: opts.cwd,
      env: opts.env ?? process.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let peakRss = 0;
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      if (stdout.length < max) stdout += d;
      opts.onStdout?.(d);
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      if (stderr.length < max) stderr += d;
    });
    const killGroup = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    };
    const poll = setInterval(() => {
      if (child.pid) peakRss = Math.max(peakRss, vmHwm(child.pid));
    }, 50);
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, opts.timeoutMs);
    child.on('error', (e) => {
      stderr += `spawn failed: ${e.message}\n`;
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearInterval(poll);
      // Leftover grandchildren of a finished run must not outlive it either.
      killGroup();
      resolvePromise({ code, signal, stdout, stderr, timedOut, ms: performance.now() - t0, peakRss });
    });
    child.on('exit', () => {
      if (child.pid) peakRss = Math.max(peakRss, vmHwm(child.pid));
    });
  });
}

/** Run `fn` over `items` with at most `n` running at once; results keep the input order. */
export async function mapLimit<T, R>(items: T[], n: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, lane));
  return out;
}
