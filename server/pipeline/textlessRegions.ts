/**
 * Where a page can show text that its text layer lacks (missingText.ts reads them by OCR): placed
 * images, and groups of curved vector paths (glyph outlines: a logo's words, a title converted
 * to curves), that no text-layer character lies on. Tiny marks, page-sized scans (a scanned page
 * is OCR'd whole or carries its own layer) and whole-page backgrounds are not regions.
 */
import type { BBox } from '../../common/protocol';
import type { TextSpan } from '../model/content';
import { near, union } from '../pdf/graphics';

/** A region smaller than this (points) holds no readable line. */
const MIN_W = 12;
const MIN_H = 6;
/** Larger than this share of the page: a background or a scan, not a title. */
const MAX_PAGE_SHARE = 0.5;
/** Curved clusters this close (points) are one group: the words of one logo line. */
const GROUP_GAP = 6;
/** A group of outlines: at least this many shapes, mostly curved (glyphs are curves). */
const MIN_SHAPES = 3;
const MIN_CURVED_SHARE = 0.7;
/** A cluster taller than this is a drawing, not the outline of a line of letters. */
const MAX_GLYPH_CLUSTER_H = 60;

export interface ShapeCluster {
  bbox: BBox;
  count: number;
  curved: number;
}

/** A region to read; `parts`: the outline clusters it was grouped from (their gaps are word gaps). */
export interface TextlessRegion {
  bbox: BBox;
  parts: BBox[];
}

export function textlessRegions(
  images: BBox[],
  clusters: ShapeCluster[],
  spans: TextSpan[],
  W: number,
  H: number,
): TextlessRegion[] {
  const pageArea = W * H;
  const ok = (b: BBox) => {
    const w = b.x1 - b.x0;
    const h = b.y1 - b.y0;
    return w >= MIN_W && h >= MIN_H && w * h <= pageArea * MAX_PAGE_SHARE && !hasText(b, spans);
  };
  const out: TextlessRegion[] = images.filter(ok).map((bbox) => ({ bbox, parts: [] }));
  // Curved clusters grouped by proximity (union–find over a few hundred boxes at most).
  const curved = clusters.filter((c) => c.curved > 0 && c.bbox.y1 - c.bbox.y0 <= MAX_GLYPH_CLUSTER_H).slice(0, 400);
  const parent = curved.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i])));
  for (let i = 0; i < curved.length; i++)
    for (let j = 0; j < i; j++) if (near(curved[i].bbox, curved[j].bbox, GROUP_GAP)) parent[find(i)] = find(j);
  const groups = new Map<number, ShapeCluster & { parts: BBox[] }>();
  curved.forEach((c, i) => {
    const r = find(i);
    const g = groups.get(r);
    if (!g) groups.set(r, { bbox: { ...c.bbox }, count: c.count, curved: c.curved, parts: [c.bbox] });
    else {
      g.bbox = union(g.bbox, c.bbox);
      g.count += c.count;
      g.curved += c.curved;
      g.parts.push(c.bbox);
    }
  });
  for (const g of groups.values())
    if (g.count >= MIN_SHAPES && g.curved >= g.count * MIN_CURVED_SHARE && ok(g.bbox))
      out.push({ bbox: g.bbox, parts: g.parts });
  // Larger regions first: a page's title before its ornaments when the cap is reached.
  return out.sort((a, b) => area(b.bbox) - area(a.bbox));
}

function area(b: BBox): number {
  return (b.x1 - b.x0) * (b.y1 - b.y0);
}

/** Whether a text-layer span's centre lies in the box. */
function hasText(b: BBox, spans: TextSpan[]): boolean {
  return spans.some((s) => {
    const cx = (s.bbox.x0 + s.bbox.x1) / 2;
    const cy = (s.bbox.y0 + s.bbox.y1) / 2;
    return cx >= b.x0 && cx <= b.x1 && cy >= b.y0 && cy <= b.y1 && s.text.trim() !== '';
  });
}
