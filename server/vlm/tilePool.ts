/**
 * Recycled tile buffers (issue 38): a page's tiles are [images, 3, 512, 512] float32, ~53 MB for
 * 17 tiles. Writing them into a fresh ArrayBuffer cost ~170 ms of CPU per page on the 2-core VM
 * (one page fault per 4 KiB as the zeroed memory is first touched), three times the resize itself;
 * into a buffer that was used before it costs ~10 ms. So each thread that computes tiles keeps
 * the buffers its consumer gave back and writes the next page into one of them.
 *
 * Ownership, the rule that makes reuse safe: a buffer is either free (in this pool, unreachable
 * from outside) or handed out (the pool holds no reference). `acquire` hands out a free one or a
 * fresh one; `release` takes one back and **detaches** the releaser's ArrayBuffer (it is moved
 * into a new ArrayBuffer object, no copy), so every view the releaser still holds reads as empty
 * instead of seeing the next page's values. A buffer nobody releases is never reused (it is
 * collected as before); a page held by a caller is therefore never overwritten.
 *
 * Size classes: a request of n floats (tiles × 3 × T × T) takes the smallest free buffer holding
 * at least n and at most 1.5 n floats (a 17-tile buffer serves a 13-tile page), as a view of
 * exactly n floats; every one of them is written before it is handed out.
 *
 * Bound: at most `maxFree` free buffers and `maxFreeBytes` per pool (2 and 128 MiB: two 17-tile
 * pages); the oldest free buffer goes first, a buffer larger than the cap alone is not kept,
 * and free buffers unused for `idleMs` (30 s) are dropped, so an idle engine holds none.
 */
export interface TilePoolStats {
  /** Buffers handed out that were allocated fresh. */
  fresh: number;
  /** Buffers handed out that were used before. */
  reused: number;
  /** Free buffers now, and their bytes. */
  free: number;
  freeBytes: number;
}

export class TileBufferPool {
  /** Free buffers, oldest first, with when each was released. */
  private free: { buffer: ArrayBuffer; at: number }[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private fresh = 0;
  private reused = 0;

  constructor(
    readonly maxFree = 2,
    readonly maxFreeBytes = 128 * 2 ** 20,
    readonly idleMs = 30_000,
  ) {}

  /** A Float32Array of exactly `floats` values whose contents are stale: the caller writes every one. */
  acquire(floats: number): Float32Array {
    const bytes = floats * 4;
    let best = -1;
    for (let i = 0; i < this.free.length; i++) {
      const b = this.free[i].buffer.byteLength;
      if (b >= bytes && b <= bytes * 1.5 && (best < 0 || b < this.free[best].buffer.byteLength)) best = i;
    }
    if (best < 0) {
      this.fresh++;
      return new Float32Array(floats);
    }
    const [{ buffer }] = this.free.splice(best, 1);
    this.reused++;
    return new Float32Array(buffer, 0, floats);
  }

  /**
   * Takes `buffer` back for later pages. The caller gives up every view of it: they are detached
   * here. A buffer that is already detached (released twice, or transferred elsewhere) is ignored.
   */
  release(buffer: ArrayBuffer): void {
    if (buffer.byteLength === 0 || buffer instanceof SharedArrayBuffer) return;
    const moved = structuredClone(buffer, { transfer: [buffer] });
    if (moved.byteLength > this.maxFreeBytes) return;
    this.free.push({ buffer: moved, at: performance.now() });
    let bytes = this.free.reduce((a, f) => a + f.buffer.byteLength, 0);
    while (this.free.length > this.maxFree || bytes > this.maxFreeBytes) bytes -= this.free.shift()!.buffer.byteLength;
    this.scheduleTrim();
  }

  /** Drops every free buffer. */
  clear(): void {
    this.free = [];
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  stats(): TilePoolStats {
    return {
      fresh: this.fresh,
      reused: this.reused,
      free: this.free.length,
      freeBytes: this.free.reduce((a, f) => a + f.buffer.byteLength, 0),
    };
  }

  /** Drops the free buffers released `idleMs` or more before `now` (the timer calls it). */
  trim(now = performance.now()): void {
    this.free = this.free.filter((f) => now - f.at < this.idleMs);
  }

  private scheduleTrim(): void {
    if (this.timer || this.idleMs === Infinity) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.trim();
      if (this.free.length > 0) this.scheduleTrim();
    }, this.idleMs);
    // The trim never keeps a process (or a worker thread) alive.
    this.timer.unref?.();
  }
}

/** This thread's pool: the tiles `preprocessHere` computes on this thread are written into it. */
export const threadTilePool = new TileBufferPool();

/** Where a buffer that came from another thread goes back to, by buffer (see `sendBackTo`). */
const homes = new WeakMap<ArrayBuffer, (buffer: ArrayBuffer) => void>();

/** Marks `buffer` (received from another thread) to be handed to `home` when released, not kept here. */
export function sendBackTo(buffer: ArrayBuffer, home: (buffer: ArrayBuffer) => void): void {
  homes.set(buffer, home);
}

/**
 * Gives a tile buffer back once its consumer is done with it (after the vision encoder's last
 * `run` over it resolved): to the thread it came from, else to this thread's pool. Every view of
 * it is detached either way.
 */
export function releaseTileBuffer(buffer: ArrayBufferLike): void {
  if (!(buffer instanceof ArrayBuffer) || buffer.byteLength === 0) return;
  const home = homes.get(buffer);
  homes.delete(buffer);
  if (home) home(buffer);
  else threadTilePool.release(buffer);
}
