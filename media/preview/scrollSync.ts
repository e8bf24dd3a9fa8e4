/**
 * Scroll sync, the view's side (the host's is src/preview/scrollSync.ts): a scroll the user makes
 * here (wheel, keys, scrollbar, touch) is reported as the region at the view's top and how far down
 * its box that top is; the host's `scrollTo` puts such a point at the top. Scrolls the view makes
 * itself (following the editor, scrolling a selected box into view, zoom) are not reported, so a
 * synced scroll never echoes back to the editor.
 */
import type { PageView } from '../../common/viewMessages';
import { ScrollAttribution } from './scrollAttribution';

/** At most one report per this many ms while scrolling (the last position is always sent). */
const REPORT_EVERY_MS = 50;

export class ViewScrollSync {
  private readonly whose = new ScrollAttribution(() => performance.now());
  /** Where the last follow put the view (scrollY), and until when its scroll events are its echo. */
  private followY: number | undefined;
  private followUntil = 0;
  private lastScroll = -Infinity;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastReport = '';

  constructor(
    private readonly root: HTMLElement,
    private readonly pages: () => ReadonlyMap<number, PageView>,
    private readonly report: (regionId: string, fraction: number) => void,
  ) {
    const input = () => this.whose.input();
    for (const type of ['wheel', 'keydown', 'touchstart'] as const)
      window.addEventListener(type, input, { passive: true, capture: true });
    window.addEventListener('pointerdown', () => this.whose.pointer(true), { capture: true });
    window.addEventListener('pointerup', () => this.whose.pointer(false), { capture: true });
    window.addEventListener('scroll', () => this.onScroll(), { passive: true });
    window.addEventListener('scrollend', () => this.onScrollEnd(), { passive: true });
  }

  /** The view is about to scroll on its own (a selected box, zoom) for up to `ms`: not the user's. */
  selfScroll(ms: number): void {
    this.whose.selfScroll(ms);
  }

  /** The host's `scrollTo`: put the point `fraction` down the region's box at the view's top. */
  follow(regionId: string, fraction: number): void {
    const y = this.regionY(regionId, fraction);
    if (y === undefined) return;
    const target = Math.max(0, Math.round(window.scrollY + y - this.topInset()));
    if (Math.abs(target - window.scrollY) < 1) return;
    // Its scroll events (one frame later, or many on a busy machine) are known by where they land.
    this.followY = target;
    this.followUntil = performance.now() + 3000;
    this.lastReport = '';
    this.whose.interrupted();
    window.scrollTo({ top: target, behavior: 'instant' });
    // For the end-to-end test: how many times the view followed the editor.
    this.root.dataset.followed = String(Number(this.root.dataset.followed ?? 0) + 1);
  }

  /** True while the view is scrolling (a box passing under a still pointer is no hover then). */
  get scrolling(): boolean {
    return performance.now() - this.lastScroll < 500;
  }

  private onScroll(): void {
    const now = performance.now();
    this.lastScroll = now;
    if (this.followY !== undefined && now < this.followUntil) {
      if (Math.abs(window.scrollY - this.followY) <= 2) return;
      this.followY = undefined; // the user scrolled away from where the sync put the view
    }
    if (!this.whose.isUsers()) return;
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.send();
    }, REPORT_EVERY_MS);
  }

  /** The scroll stopped: a user's scroll is reported where it stopped, at once (scrollAttribution.ts). */
  private onScrollEnd(): void {
    if (!this.whose.ended()) return;
    if (this.followY !== undefined && Math.abs(window.scrollY - this.followY) <= 2) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.send();
  }

  /** The view's top: just below the sticky toolbar. */
  private topInset(): number {
    return document.querySelector('.toolbar')?.getBoundingClientRect().bottom ?? 0;
  }

  /** Viewport y of the point `fraction` down a region's box. */
  private regionY(regionId: string, fraction: number): number | undefined {
    const page = Number(/^p(\d+)-/.exec(regionId)?.[1]);
    const p = this.pages().get(page);
    const r = p?.regions.find((x) => x.id === regionId);
    const sheet = document.querySelector<HTMLElement>(`#page-${page} .sheet`);
    if (!p || !r || !sheet) return undefined;
    const s = sheet.getBoundingClientRect();
    return s.top + ((r.bbox.y0 + fraction * (r.bbox.y1 - r.bbox.y0)) / p.height) * s.height;
  }

  /**
   * The first linked region in reading order, on the first page reaching below the view's top,
   * that is not yet scrolled past (in two columns: the left column's before the right's).
   */
  private send(): void {
    const y = this.topInset();
    for (const sheet of document.querySelectorAll<HTMLElement>('section.page .sheet')) {
      const s = sheet.getBoundingClientRect();
      if (s.bottom <= y) continue;
      const p = this.pages().get(Number(sheet.dataset.page));
      if (!p) continue;
      let best: { id: string; order: number; top: number; bottom: number } | undefined;
      for (const r of p.regions) {
        if (!r.linked) continue;
        const top = s.top + (r.bbox.y0 / p.height) * s.height;
        const bottom = s.top + (r.bbox.y1 / p.height) * s.height;
        if (bottom <= y || (best && r.order >= best.order)) continue;
        best = { id: r.id, order: r.order, top, bottom };
      }
      if (!best) continue;
      const fraction = Math.min(1, Math.max(0, (y - best.top) / Math.max(1, best.bottom - best.top)));
      const key = `${best.id}@${fraction.toFixed(3)}`;
      if (key === this.lastReport) return;
      this.lastReport = key;
      this.report(best.id, fraction);
      this.root.dataset.scrollReports = String(Number(this.root.dataset.scrollReports ?? 0) + 1);
      return;
    }
  }
}
