/**
 * A real Redis (Debian's redis-server) for one test file: a free loopback port, a temporary
 * folder, no persistence; stopped by its PID. Fails with the install command when missing.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RedisHandle {
  port: number;
  url: string;
  pid: number;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** `password`: Redis runs with `requirepass` (as docs/scaling.md's examples do) and `url` carries it. */
export async function startRedis(port?: number, opts: { password?: string } = {}): Promise<RedisHandle> {
  if (spawnSync('redis-server', ['--version']).status !== 0) {
    throw new Error(
      'redis-server is not installed: run `sudo apt-get install -y redis-server` (scripts/test-deps.sh does it in CI)',
    );
  }
  const p = port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'folio-redis-'));
  const child: ChildProcess = spawn(
    'redis-server',
    [
      '--port',
      String(p),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'no',
      '--protected-mode',
      'yes',
      ...(opts.password ? ['--requirepass', opts.password] : []),
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let log = '';
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`redis-server did not start on port ${p}: ${log}`)), 15000);
    child.stdout!.on('data', (d: Buffer) => {
      log += d.toString();
      if (log.includes('Ready to accept connections')) {
        clearTimeout(t);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(t);
      reject(new Error(`redis-server exited (${code}): ${log}`));
    });
  });
  return {
    port: p,
    url: opts.password ? `redis://:${encodeURIComponent(opts.password)}@127.0.0.1:${p}` : `redis://127.0.0.1:${p}`,
    pid: child.pid!,
    stop: async () => {
      if (child.exitCode === null) {
        const gone = new Promise((r) => child.once('exit', r));
        process.kill(child.pid!, 'SIGKILL');
        await gone;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
