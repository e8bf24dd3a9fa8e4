/**
 * Zoom of the page pane. 1 = fit width (the default): a page is as wide as the pane allows; the
 * page's width is that times the zoom. Buttons, + / − / 0 and Ctrl+wheel change it; the point under
 * the cursor (or the view's middle) stays in place. Boxes are placed in fractions of the page, so
 * they stay aligned at every zoom.
 */
export const MIN_ZOOM = 0.25;
export const MAX_ZOOM = 5;
export const ZOOM_STEP = 1.25;

export class Zoom {
  private zoom = 1;

  constructor(
    private readonly label: HTMLElement,
    private readonly onChange: (zoom: number) => void,
  ) {}

  get value(): number {
    return this.zoom;
  }

  set(next: number, anchorY?: number): void {
    const old = this.zoom;
    this.zoom = Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, Math.round(next * 100) / 100));
    document.documentElement.style.setProperty('--folio-zoom', String(this.zoom));
    this.label.textContent = this.zoom === 1 ? 'Fit width' : `${Math.round(this.zoom * 100)}%`;
    this.label.setAttribute('aria-label', `Zoom ${Math.round(this.zoom * 100)}% of the fit width`);
    document.documentElement.dataset.zoom = String(this.zoom);
    if (old !== this.zoom) {
      const y = anchorY ?? window.innerHeight / 2;
      const docY = window.scrollY + y;
      window.scrollTo({ top: (docY * this.zoom) / old - y });
    }
    this.onChange(this.zoom);
  }

  in(): void {
    this.set(this.zoom * ZOOM_STEP);
  }

  out(): void {
    this.set(this.zoom / ZOOM_STEP);
  }

  fit(): void {
    this.set(1);
  }

  /** Ctrl+wheel (and the trackpad pinch, which Chromium reports as Ctrl+wheel). */
  wheel(e: WheelEvent): void {
    if (!e.ctrlKey) return;
    e.preventDefault();
    this.set(this.zoom * (e.deltaY < 0 ? 1.1 : 1 / 1.1), e.clientY);
  }
}
