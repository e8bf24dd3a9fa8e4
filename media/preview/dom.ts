/** Small DOM helpers for the preview webview. Text is always set through textContent. */
import type { BBox, RegionClass } from '../../common/protocol';

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  text?: string,
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else e.setAttribute(k, v);
  }
  if (text !== undefined) e.textContent = text;
  return e;
}

/** Human label of a class ("section_header" → "section header"). */
export function classLabel(cls: RegionClass): string {
  return cls.replace(/_/g, ' ');
}

/** Places an absolutely positioned element over a page of `w`×`h` points (percentages, so it scales). */
export function place(e: HTMLElement, b: BBox, w: number, h: number): void {
  e.style.left = `${(b.x0 / w) * 100}%`;
  e.style.top = `${(b.y0 / h) * 100}%`;
  e.style.width = `${((b.x1 - b.x0) / w) * 100}%`;
  e.style.height = `${((b.y1 - b.y0) / h) * 100}%`;
}

export function clampBox(b: BBox, w: number, h: number, min = 2): BBox {
  let { x0, y0, x1, y1 } = b;
  if (x1 < x0) [x0, x1] = [x1, x0];
  if (y1 < y0) [y0, y1] = [y1, y0];
  x0 = Math.max(0, Math.min(w - min, x0));
  y0 = Math.max(0, Math.min(h - min, y0));
  x1 = Math.max(x0 + min, Math.min(w, x1));
  y1 = Math.max(y0 + min, Math.min(h, y1));
  const r = (v: number) => Math.round(v * 100) / 100;
  return { x0: r(x0), y0: r(y0), x1: r(x1), y1: r(y1) };
}
