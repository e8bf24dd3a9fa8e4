/**
 * A map whose entries are closed after a time without use: the backend keeps documents open
 * for region reparses (opening a PDF again per reparse is slow), but a document nobody reparses
 * any more must not stay in the workers' memory for the rest of the session.
 *
 * An entry in use (between `acquire` and its release) is never closed.
 */
export class IdleMap<V> {
  private readonly entries = new Map<string, { value: V; users: number; timer?: ReturnType<typeof setTimeout> }>();

  constructor(
    private readonly idleMs: number,
    private readonly onIdle: (key: string, value: V) => void,
  ) {}

  /** The entry for `key` (created with `make` when missing), held until the returned release is called. */
  acquire(key: string, make: () => V): { value: V; release: () => void } {
    let e = this.entries.get(key);
    if (!e) {
      e = { value: make(), users: 0 };
      this.entries.set(key, e);
    }
    const entry = e;
    clearTimeout(entry.timer);
    entry.users++;
    let released = false;
    return {
      value: entry.value,
      release: () => {
        if (released) return;
        released = true;
        entry.users--;
        if (entry.users === 0 && this.entries.get(key) === entry) {
          entry.timer = setTimeout(() => this.close(key), this.idleMs);
          entry.timer.unref?.();
        }
      },
    };
  }

  /** Drops an entry now (e.g. it could not be opened); `onIdle` is called for it. */
  close(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    clearTimeout(e.timer);
    this.entries.delete(key);
    this.onIdle(key, e.value);
  }

  /** Keys whose entries match `pred` (e.g. older versions of the same file). */
  keys(pred: (key: string) => boolean = () => true): string[] {
    return [...this.entries.keys()].filter(pred);
  }

  get size(): number {
    return this.entries.size;
  }

  dispose(): void {
    for (const key of [...this.entries.keys()]) this.close(key);
  }
}
