/**
 * Which in-progress pages the preview shows (a page the VLM is still writing, `partial`
 * messages) and which partials are stale. Pure (no DOM), so it is tested in Node.
 *
 * A partial is shown only when it belongs to the conversion now running (its id came with
 * `init`), its page has no final result yet, and it is newer (`seq`) than the one shown. A page's
 * final result supersedes its partial for good; when the conversion ends (finished, cancelled) the
 * partials still showing are to be removed — their pages never finished.
 */
export interface PartialUpdate {
  conversion: string;
  page: number;
  seq: number;
}

export class PartialPages {
  private conversion: string | undefined;
  private readonly finals = new Set<number>();
  private readonly shown = new Map<number, number>();

  /** A new state (`init`): the conversion running now (undefined when none) and the pages already final. */
  reset(conversion: string | undefined, finalPages: Iterable<number>): void {
    this.conversion = conversion;
    this.finals.clear();
    this.shown.clear();
    for (const p of finalPages) this.finals.add(p);
  }

  /** True when this partial is to be shown (and it becomes the page's newest). */
  accept(u: PartialUpdate): boolean {
    if (this.conversion === undefined || u.conversion !== this.conversion) return false;
    if (this.finals.has(u.page)) return false;
    if (u.seq <= (this.shown.get(u.page) ?? 0)) return false;
    this.shown.set(u.page, u.seq);
    return true;
  }

  /** The page's final result arrived; returns whether a partial of it was showing. */
  final(page: number): boolean {
    this.finals.add(page);
    return this.shown.delete(page);
  }

  /** The conversion ended: no partial is accepted any more; returns the pages whose partial is still shown. */
  finish(): number[] {
    this.conversion = undefined;
    const left = [...this.shown.keys()];
    this.shown.clear();
    return left;
  }

  isShowing(page: number): boolean {
    return this.shown.has(page);
  }
}
