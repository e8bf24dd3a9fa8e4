/** Messages between the PDF viewer (custom editor `folio.pdf`) and its webview; checked on arrival on both sides. */

export interface ViewerRegion {
  cls: string;
  /** Box as fractions of the page (0–1), top-left origin: stays aligned at every zoom. */
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface ViewerPage {
  page: number;
  /** Page size in points (for the aspect ratio). */
  width: number;
  height: number;
  /** Webview URI of the rendered page image. */
  image?: string;
  regions: ViewerRegion[];
}

export type ToViewer =
  | { type: 'pages'; pages: ViewerPage[]; converted: boolean }
  | { type: 'status'; text: string };

export type FromViewer = { type: 'ready' } | { type: 'convert' };

export function isFromViewer(m: unknown): m is FromViewer {
  const t = (m as { type?: unknown } | null)?.type;
  return t === 'ready' || t === 'convert';
}

const num = (v: unknown) => typeof v === 'number' && Number.isFinite(v);

export function isToViewer(m: unknown): m is ToViewer {
  const o = m as { type?: unknown; text?: unknown; pages?: unknown; converted?: unknown } | null;
  if (o?.type === 'status') return typeof o.text === 'string';
  if (o?.type !== 'pages' || !Array.isArray(o.pages) || typeof o.converted !== 'boolean') return false;
  return o.pages.every((p: Partial<ViewerPage>) => num(p.page) && num(p.width) && num(p.height) && (p.image === undefined || typeof p.image === 'string') && Array.isArray(p.regions) && p.regions.every((r) => typeof r.cls === 'string' && num(r.x) && num(r.y) && num(r.w) && num(r.h)));
}
