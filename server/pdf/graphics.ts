/**
 * Reads the operator list for what layout needs besides text: ruling lines (strokes and thin
 * filled rectangles, used by table detection and to separate blocks), placed images, clusters
 * of vector drawing (figures), and tiny vector marks (bullets drawn as shapes, as Chromium does).
 * Coordinates are displayed-page points, top-left origin.
 */
import type { BBox } from '../../common/protocol';
import type { Rule } from '../model/content';
import { mul } from './text';

/** The OPS codes used here, read from pdf.js at run time (they are not stable across versions). */
export interface OpsCodes {
  [name: string]: number;
}

export interface PageGraphics {
  rules: Rule[];
  images: BBox[];
  /** Vector shapes that are neither rules nor page backgrounds, before clustering. */
  shapes: { bbox: BBox; curved: boolean }[];
}

const PAINT = new Set([
  'fill',
  'eoFill',
  'stroke',
  'closeStroke',
  'fillStroke',
  'eoFillStroke',
  'closeFillStroke',
  'closeEOFillStroke',
]);

export function readGraphics(
  fnArray: number[],
  argsArray: unknown[],
  OPS: OpsCodes,
  viewportTransform: number[],
  pageW: number,
  pageH: number,
): PageGraphics {
  const name: Record<number, string> = {};
  for (const [k, v] of Object.entries(OPS)) name[v] = k;
  let ctm = [1, 0, 0, 1, 0, 0];
  let lineWidth = 1;
  const stack: { ctm: number[]; lineWidth: number }[] = [];
  const out: PageGraphics = { rules: [], images: [], shapes: [] };
  const toPage = (x: number, y: number): [number, number] => {
    const m = mul(viewportTransform, ctm);
    return [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];
  };
  const boxOf = (x0: number, y0: number, x1: number, y1: number): BBox => {
    const pts = [toPage(x0, y0), toPage(x1, y0), toPage(x0, y1), toPage(x1, y1)];
    const xs = pts.map((p) => p[0]);
    const ys = pts.map((p) => p[1]);
    return { x0: Math.min(...xs), y0: Math.min(...ys), x1: Math.max(...xs), y1: Math.max(...ys) };
  };
  const pageArea = pageW * pageH;
  for (let i = 0; i < fnArray.length; i++) {
    const op = name[fnArray[i]];
    const args = argsArray[i] as unknown[] | null;
    switch (op) {
      case 'save':
        stack.push({ ctm, lineWidth });
        break;
      case 'restore': {
        const s = stack.pop();
        if (s) ({ ctm, lineWidth } = s);
        break;
      }
      case 'transform':
        ctm = mul(ctm, args as number[]);
        break;
      case 'paintFormXObjectBegin': {
        stack.push({ ctm, lineWidth });
        const m = (args?.[0] as number[] | null) ?? null;
        if (m && m.length === 6) ctm = mul(ctm, Array.from(m));
        break;
      }
      case 'paintFormXObjectEnd': {
        const s = stack.pop();
        if (s) ({ ctm, lineWidth } = s);
        break;
      }
      case 'setLineWidth':
        lineWidth = Number((args as number[])[0]) || 0;
        break;
      case 'paintImageXObject':
      case 'paintInlineImageXObject':
      case 'paintImageXObjectRepeat':
      case 'paintImageMaskXObject': {
        const b = boxOf(0, 0, 1, 1);
        if (b.x1 - b.x0 >= 4 && b.y1 - b.y0 >= 4) out.images.push(clip(b, pageW, pageH));
        break;
      }
      case 'constructPath': {
        const paintOp = name[(args as number[])[0]];
        if (!PAINT.has(paintOp)) break; // clip paths and endPath paint nothing
        const mm = (args as unknown[])[2] as ArrayLike<number> | null;
        if (!mm || mm.length < 4 || !Number.isFinite(mm[0])) break;
        const stroked = paintOp.toLowerCase().includes('stroke');
        const scale = Math.hypot(ctm[0], ctm[1]);
        const halfW = stroked ? Math.max(0.25, (lineWidth * scale) / 2) : 0;
        const raw = boxOf(mm[0], mm[1], mm[2], mm[3]);
        const b = { x0: raw.x0 - halfW, y0: raw.y0 - halfW, x1: raw.x1 + halfW, y1: raw.y1 + halfW };
        const w = b.x1 - b.x0;
        const h = b.y1 - b.y0;
        if (w <= 0 || h <= 0) break;
        if (b.x1 < 0 || b.y1 < 0 || b.x0 > pageW || b.y0 > pageH) break;
        const curved = hasCurves((args as unknown[])[1]);
        if (!curved && ((h <= 3 && w >= 6) || (w <= 3 && h >= 6))) {
          out.rules.push(clipRule(b, pageW, pageH));
          break;
        }
        // Short thin bars: fraction bars of small fractions (1/x in a denominator). They stay
        // shapes too, since a dash drawn as a shape may be a list bullet.
        if (!curved && h <= 1.5 && w >= 2.5 && w >= 3 * h) out.rules.push(clipRule(b, pageW, pageH));
        // Page or column backgrounds are not figures.
        if (w * h > pageArea * 0.5) break;
        out.shapes.push({ bbox: clip(b, pageW, pageH), curved });
        break;
      }
      default:
        break;
    }
  }
  return out;
}

function hasCurves(data: unknown): boolean {
  // pdf.js 6: path data is an array holding one Float32Array of [cmd, coords…]; 2 and 3 are curves.
  const arr = Array.isArray(data) ? data[0] : data;
  if (!arr || typeof (arr as ArrayLike<number>).length !== 'number') return false;
  const a = arr as ArrayLike<number>;
  let i = 0;
  let segs = 0;
  while (i < a.length) {
    const c = a[i];
    if (c === 0 || c === 1) i += 3;
    else if (c === 2) return true;
    else if (c === 3) return true;
    else i += 1;
    segs++;
    if (segs > 100000) break;
  }
  return false;
}

function clip(b: BBox, w: number, h: number): BBox {
  return { x0: Math.max(0, b.x0), y0: Math.max(0, b.y0), x1: Math.min(w, b.x1), y1: Math.min(h, b.y1) };
}

function clipRule(b: BBox, w: number, h: number): Rule {
  const c = clip(b, w, h);
  return { x0: c.x0, y0: c.y0, x1: c.x1, y1: c.y1 };
}

/**
 * Groups shapes that touch (within `gap` pt) into clusters; returns cluster boxes with their
 * shape counts. Union-find over a coarse grid, so a page of 100,000 path fragments (maps, plots)
 * stays linear instead of comparing every pair.
 */
export function clusterShapes(
  shapes: { bbox: BBox; curved: boolean }[],
  gap = 1,
): { bbox: BBox; count: number; curved: number }[] {
  const n = shapes.length;
  if (n === 0) return [];
  const parent = new Int32Array(n);
  for (let i = 0; i < n; i++) parent[i] = i;
  const find = (i: number): number => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]];
      i = parent[i];
    }
    return i;
  };
  const CELL = 24;
  const grid = new Map<number, number[]>();
  const key = (cx: number, cy: number) => cx * 100003 + cy;
  for (let i = 0; i < n; i++) {
    const b = shapes[i].bbox;
    const cx0 = Math.floor((b.x0 - gap) / CELL);
    const cx1 = Math.floor((b.x1 + gap) / CELL);
    const cy0 = Math.floor((b.y0 - gap) / CELL);
    const cy1 = Math.floor((b.y1 + gap) / CELL);
    // Huge shapes would touch thousands of cells; they are rare (frames), compare them directly.
    const cells = (cx1 - cx0 + 1) * (cy1 - cy0 + 1);
    if (cells > 400) {
      for (let j = 0; j < i; j++) if (near(b, shapes[j].bbox, gap)) parent[find(i)] = find(j);
      continue;
    }
    for (let cx = cx0; cx <= cx1; cx++) {
      for (let cy = cy0; cy <= cy1; cy++) {
        const k = key(cx, cy);
        const list = grid.get(k);
        if (list) {
          for (const j of list) if (find(i) !== find(j) && near(b, shapes[j].bbox, gap)) parent[find(i)] = find(j);
          if (list.length < 64) list.push(i);
        } else grid.set(k, [i]);
      }
    }
  }
  const byRoot = new Map<number, { bbox: BBox; count: number; curved: number }>();
  for (let i = 0; i < n; i++) {
    const r = find(i);
    const s = shapes[i];
    const c = byRoot.get(r);
    if (!c) byRoot.set(r, { bbox: { ...s.bbox }, count: 1, curved: s.curved ? 1 : 0 });
    else {
      c.bbox = union(c.bbox, s.bbox);
      c.count++;
      if (s.curved) c.curved++;
    }
  }
  return [...byRoot.values()];
}

export function near(a: BBox, b: BBox, gap: number): boolean {
  return a.x0 - gap <= b.x1 && b.x0 - gap <= a.x1 && a.y0 - gap <= b.y1 && b.y0 - gap <= a.y1;
}

export function union(a: BBox, b: BBox): BBox {
  return { x0: Math.min(a.x0, b.x0), y0: Math.min(a.y0, b.y0), x1: Math.max(a.x1, b.x1), y1: Math.max(a.y1, b.y1) };
}
