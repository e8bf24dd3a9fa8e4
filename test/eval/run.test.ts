import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { runProcess, mapLimit } from '../../eval/run';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    // A zombie still answers signal 0; /proc tells it apart.
    return !/State:\s+Z/.test(execFileSync('cat', [`/proc/${pid}/status`]).toString());
  } catch {
    return false;
  }
}

test('runProcess: a timeout kills the whole process group, grandchildren included', async () => {
  // The shell starts a background grandchild and prints its pid, then both sleep.
  const r = await runProcess('sh', ['-c', 'sleep 30 & echo $!; sleep 30'], { timeoutMs: 500 });
  assert.equal(r.timedOut, true);
  assert.ok(r.ms < 5000, `took ${r.ms} ms`);
  const grandchild = Number(r.stdout.trim());
  assert.ok(grandchild > 0, r.stdout);
  // SIGKILL is delivered at once but the process is gone only when the kernel has torn it down:
  // wait for that (its /proc entry going or turning zombie), within a generous deadline.
  const deadline = Date.now() + 10_000;
  while (alive(grandchild) && Date.now() < deadline) await new Promise((res) => setTimeout(res, 5)); // a poll, not a guess
  assert.equal(alive(grandchild), false, 'the background grandchild survived the timeout');
});

test('runProcess: exit code, output and peak RSS of a normal run', async () => {
  const r = await runProcess(
    process.execPath,
    ['-e', 'const a = Buffer.alloc(64 * 2 ** 20, 1); setTimeout(() => { console.log(a[5]); process.exit(3); }, 300)'],
    { timeoutMs: 10_000 },
  );
  assert.equal(r.timedOut, false);
  assert.equal(r.code, 3);
  assert.equal(r.stdout.trim(), '1');
  // 64 MiB touched: the polled high-water mark must see at least that.
  assert.ok(r.peakRss > 64 * 2 ** 20, `peak RSS ${r.peakRss}`);
});

test('mapLimit: keeps order and never runs more than the limit at once', { timeout: 30_000 }, async () => {
  let running = 0;
  let most = 0;
  // Each item's work ends when the test says so: the newest started first, so they finish out of order.
  const started: { x: number; finish: () => void }[] = [];
  let startedOne: () => void = () => undefined;
  const run = mapLimit([5, 1, 4, 2, 3], 2, async (x) => {
    most = Math.max(most, ++running);
    await new Promise<void>((finish) => {
      started.push({ x, finish });
      startedOne();
    });
    running--;
    return x * 10;
  });
  const nextStart = () => new Promise<void>((r) => (startedOne = r));
  for (let done = 0; done < 5; done++) {
    // Both lanes take an item while items remain: wait for the start that fills the free lane.
    while (started.length < Math.min(done + 2, 5)) await nextStart();
    // Finish the most recently started item still running (so items finish out of order).
    const item = started.filter((s) => s.x >= 0).at(-1)!;
    item.x = -1;
    item.finish();
  }
  assert.deepEqual(await run, [50, 10, 40, 20, 30]);
  assert.equal(most, 2);
});
