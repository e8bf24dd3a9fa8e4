/**
 * One page's raw material for layout: what pdf.js reads of it (pdf/page.ts: text spans, rules,
 * images, vector shapes, lost glyphs) made into what layout takes: figures from clustered shapes
 * and images, tiny marks (bullets drawn as shapes), and the regions OCR may find text in.
 */
import type { BBox } from '../../common/protocol';
import type { PageContent } from '../model/content';
import { readPageDrawing, type PdfPage } from '../pdf/page';
import { clusterShapes } from '../pdf/graphics';
import type { OversizedImage } from '../pdf/oversizedImages';
import { findGutters } from '../layout/lines/index';
import { textlessRegions, type TextlessRegion } from './textlessRegions';
import { boundsOf } from '../../common/bbox';

export interface RawPage {
  content: PageContent;
  /** Angle of each span (degrees; 0 = upright). */
  angles: number[];
  /** Tiny vector shapes (bullets drawn as shapes). */
  marks: BBox[];
  /** True when one image covers most of the page (a scan). */
  pageImage: boolean;
  /** Pictures and outline drawings with no text-layer text on them (textlessRegions.ts). */
  textless: TextlessRegion[];
  /** Drawn glyphs that decode to no character and stand for letters or digits (pdf/lostGlyphs.ts). */
  lostGlyphs: number;
  /** Placeholders of lost symbol glyphs (pdf/lostGlyphs.ts): never filled by OCR. */
  lostSymbols: Set<string>;
  /** The page warning counting the hidden text left out (pdf/hiddenText.ts), when any was. */
  hiddenText?: string;
  /** The page warning naming pictures too large to decode (pdf/oversizedImages.ts), when any were. */
  oversized?: string;
}

export async function readPage(
  page: PdfPage,
  pageNo: number,
  opts: { keepHiddenText?: boolean; oversizedImages?: readonly OversizedImage[] } = {},
): Promise<RawPage> {
  const drawn = await readPageDrawing(page, opts);
  const { width: W, height: H, spans, graphics: g, lost, hiddenText, oversized } = drawn;
  const marks: BBox[] = [];
  const graphics: PageContent['graphics'] = [];
  const pageArea = W * H;
  let pageImage = false;
  for (const b of g.images) {
    const a = (b.x1 - b.x0) * (b.y1 - b.y0);
    if (a >= pageArea * 0.6) pageImage = true;
    if (b.x1 - b.x0 >= 16 && b.y1 - b.y0 >= 16) graphics.push({ bbox: b, kind: 'image' });
  }
  // Figures side by side in two columns are separate figures: cluster each column's shapes apart.
  const gutters = findGutters(spans, W);
  const side = (x: number) => gutters.filter((gu) => x > (gu.x0 + gu.x1) / 2).length;
  const bySide = new Map<number, typeof g.shapes>();
  for (const sh of g.shapes) {
    const k = side((sh.bbox.x0 + sh.bbox.x1) / 2);
    const list = bySide.get(k);
    if (list) list.push(sh);
    else bySide.set(k, [sh]);
  }
  const clusters = [...bySide.values()].flatMap((list) => clusterShapes(list));
  for (const c of clusters) {
    const w = c.bbox.x1 - c.bbox.x0;
    const h = c.bbox.y1 - c.bbox.y0;
    if (w <= 9 && h <= 9 && w >= 1 && h >= 1) {
      marks.push(c.bbox);
      continue;
    }
    // A figure is many shapes; one or two (a rounded box behind a heading) are decoration.
    if (w < 40 || h < 30 || c.count < 6 || !(c.curved >= 2 || c.count >= 12)) continue;
    // Boxes full of text are text boxes or shaded tables, not figures.
    let textArea = 0;
    for (const s of spans) {
      const cx = (s.bbox.x0 + s.bbox.x1) / 2;
      const cy = (s.bbox.y0 + s.bbox.y1) / 2;
      if (cx >= c.bbox.x0 && cx <= c.bbox.x1 && cy >= c.bbox.y0 && cy <= c.bbox.y1)
        textArea += (s.bbox.x1 - s.bbox.x0) * (s.bbox.y1 - s.bbox.y0);
    }
    if (textArea > w * h * 0.2) continue;
    graphics.push({ bbox: c.bbox, kind: 'vector' });
  }
  // Images inside vector figures (or overlapping them mostly) are one figure: merge them.
  let kept = mergeOverlapping(graphics);
  // Hundreds of figures on one page is one drawing (a map, a plot): keep it as a single box.
  if (kept.length > 40) {
    const b = boundsOf(kept.map((g) => g.bbox));
    kept = [{ kind: 'vector', bbox: b }];
  }
  // Thousands of tiny marks are hatching or glyph-like drawing, not bullets.
  if (marks.length > 500) marks.length = 0;
  return {
    content: { page: pageNo, width: W, height: H, spans, rules: g.rules, graphics: kept },
    angles: spans.map((s) => s.angle),
    marks,
    pageImage,
    textless: textlessRegions(g.images, clusters, spans, W, H),
    lostGlyphs: lost.letters,
    lostSymbols: new Set([...lost.symbols].filter(([, sym]) => !sym).map(([ch]) => ch)),
    ...(hiddenText ? { hiddenText } : {}),
    ...(oversized ? { oversized } : {}),
  };
}

function area(b: BBox): number {
  return Math.max(0, b.x1 - b.x0) * Math.max(0, b.y1 - b.y0);
}

/** Share of the smaller box covered by the other. */
function coverage(a: BBox, b: BBox): number {
  const ix = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);
  const iy = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
  if (ix <= 0 || iy <= 0) return 0;
  return (ix * iy) / Math.max(1e-6, Math.min(area(a), area(b)));
}

/** Largest first; each graphic mostly covered by a kept one is merged into it (one pass). */
function mergeOverlapping(list: PageContent['graphics']): PageContent['graphics'] {
  const sorted = [...list].sort((a, b) => area(b.bbox) - area(a.bbox));
  const out: PageContent['graphics'] = [];
  for (const g of sorted) {
    const host = out.find((o) => coverage(o.bbox, g.bbox) >= 0.6);
    if (!host) {
      out.push({ kind: g.kind, bbox: { ...g.bbox } });
      continue;
    }
    const a = host.bbox;
    const b = g.bbox;
    host.bbox = {
      x0: Math.min(a.x0, b.x0),
      y0: Math.min(a.y0, b.y0),
      x1: Math.max(a.x1, b.x1),
      y1: Math.max(a.y1, b.y1),
    };
  }
  return out;
}
