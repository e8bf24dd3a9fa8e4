/**
 * Virtualised page images: a page's image element exists only while its sheet is within a
 * screen of the viewport; farther pages keep their size (aspect ratio), boxes and Markdown but no
 * decoded image, so a 300-page document holds a handful of page bitmaps, not 300.
 */
export class PageImages {
  private readonly observer: IntersectionObserver;
  private readonly sources = new WeakMap<Element, { src: string; page: number }>();

  /**
   * `onFirstLoad`: a page's image is loaded for the first time in this webview, `requested` ms
   * (performance.now) after it was asked for (the first-paint trace).
   */
  constructor(private readonly onFirstLoad: (page: number, requested: number) => void = () => undefined) {
    this.observer = new IntersectionObserver(
      (entries) => {
        for (const e of entries) {
          if (e.isIntersecting) this.load(e.target as HTMLElement);
          else this.unload(e.target as HTMLElement);
        }
      },
      { rootMargin: '100% 0px 100% 0px' },
    );
  }

  /** Follows a page's sheet; the image is added when it comes near the viewport. */
  watch(sheet: HTMLElement, page: number, src: string | undefined): void {
    this.observer.unobserve(sheet);
    if (!src) return;
    this.sources.set(sheet, { src, page });
    sheet.dataset.image = 'unloaded';
    this.observer.observe(sheet);
  }

  private load(sheet: HTMLElement): void {
    const s = this.sources.get(sheet);
    if (!s || sheet.querySelector('img.page-image')) return;
    const img = document.createElement('img');
    img.className = 'page-image';
    img.alt = '';
    img.decoding = 'async';
    img.draggable = false;
    const requested = performance.now();
    img.addEventListener(
      'load',
      () => {
        sheet.dataset.image = 'loaded';
        // When the first image was on screen (the end-to-end test times the first page from it).
        if (sheet.dataset.loadedAt === undefined) {
          sheet.dataset.loadedAt = String(Date.now());
          this.onFirstLoad(s.page, requested);
        }
      },
      { once: true },
    );
    img.src = s.src;
    sheet.prepend(img);
    sheet.dataset.image = 'loading';
  }

  private unload(sheet: HTMLElement): void {
    const img = sheet.querySelector<HTMLImageElement>('img.page-image');
    if (!img) return;
    // Dropping the element (and its src) lets Chromium free the decoded bitmap.
    img.removeAttribute('src');
    img.remove();
    sheet.dataset.image = 'unloaded';
  }
}
