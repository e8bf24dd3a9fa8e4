/**
 * Stage 2, gutters: the page's column gutters, the upright lines built against them, and every
 * unit the XY-cut orders, with the box it is cut by.
 */
import type { BBox } from '../../../common/protocol';
import { buildLines, findGutters, makeLine, markRowMates } from '../lines/index';
import { textEdges } from '../order/sideNotes';
import type { TextSpan } from '../../model/content';
import type { PageState, PageUnit } from './state';

/** A line is cut by a band this share of its height either side of its middle: ascenders overlap. */
const LINE_CUT_HALF_HEIGHT = 0.3;
/** A unit reaching into a gutter by at most this share of its width is clipped to its side. */
const GUTTER_OVERHANG_SHARE = 0.25;
/** Clipped boxes stop this far short of the gutter's edge. */
const CLIP_MARGIN = 0.1;
/** Tolerance (points) for a box touching a gutter's edge. */
const GUTTER_EDGE_TOLERANCE = 0.5;

export function findColumnGutters(state: PageState): PageState {
  // Text set in columns that table detection turned down (tables/notTable.ts) has gutters of its
  // own: its lines are built against them, and its spans stay out of the page's gutters (a
  // newspaper's four columns under three would hide both sets), as when it was taken for a table.
  const regionOf = (s: TextSpan) => state.textColumns.findIndex((c) => inside(s.bbox, c.bbox));
  const region = state.upright.map(regionOf);
  const outside = state.upright.filter((_, i) => region[i]! < 0);
  const gutters = findGutters(outside, state.width);
  const edges = textEdges(state.upright);
  const lines = buildLines(outside, gutters, edges);
  state.textColumns.forEach((c, k) => {
    const own = state.upright.filter((_, i) => region[i] === k);
    if (own.length > 0) lines.push(...buildLines(own, c.gutters, edges));
  });
  lines.sort((a, b) => a.bbox.y0 - b.bbox.y0 || a.bbox.x0 - b.bbox.x0);
  markRowMates(lines, state.width, gutters);
  const units: PageUnit[] = [];
  for (const l of lines)
    units.push({
      kind: 'line',
      line: l,
      rotated: false,
      bbox: l.bbox,
      cutBox: lineCutBox(l.bbox),
      words: l.text.split(/\s+/).length,
    });
  for (const s of state.rotated) {
    const l = makeLine([s], false);
    units.push({ kind: 'line', line: l, rotated: true, bbox: l.bbox, cutBox: l.bbox });
  }
  state.pictures.forEach((p, index) => units.push({ kind: 'picture', index, bbox: p.bbox, cutBox: p.bbox }));
  state.tables.forEach((t, index) => units.push({ kind: 'table', index, bbox: t.bbox, cutBox: t.bbox }));
  state.formulas.forEach((f, index) => units.push({ kind: 'formula', index, bbox: f.bbox, cutBox: f.bbox }));
  for (const u of units) clipToGutters(u, gutters);
  return { ...state, gutters, edges, lines, units };
}

/**
 * A figure or table that pokes a little into the gutter (white margins of an image) must not
 * hide the columns: for cutting, clip it to the side where most of it lies. Text lines are
 * clipped only when they reach into a gutter without crossing it (a table row wider than its
 * column, OCR'd): a title or a heading across a gutter is a full-width unit.
 */
function clipToGutters(u: PageUnit, gutters: { x0: number; x1: number }[]): void {
  for (const g of gutters) {
    const b = u.cutBox;
    // Only into the gutter, not across it: a table wider than its column (CSS columns let it
    // overflow) still stands in its column.
    if (b.x1 <= g.x0 + GUTTER_EDGE_TOLERANCE || b.x0 >= g.x1 - GUTTER_EDGE_TOLERANCE) continue;
    if (u.kind === 'line' && b.x0 < g.x0 && b.x1 > g.x1) continue;
    const left = g.x0 - b.x0;
    const right = b.x1 - g.x1;
    if (Math.min(left, right) > GUTTER_OVERHANG_SHARE * (b.x1 - b.x0)) continue;
    u.cutBox = left >= right ? { ...b, x1: g.x0 - CLIP_MARGIN } : { ...b, x0: g.x1 + CLIP_MARGIN };
  }
}

/** The span's middle lies in the box. */
function inside(b: BBox, box: BBox): boolean {
  const x = (b.x0 + b.x1) / 2;
  const y = (b.y0 + b.y1) / 2;
  return x >= box.x0 && x <= box.x1 && y >= box.y0 && y <= box.y1;
}

function lineCutBox(b: BBox): BBox {
  const cy = (b.y0 + b.y1) / 2;
  const h = (b.y1 - b.y0) * LINE_CUT_HALF_HEIGHT;
  return { x0: b.x0, y0: cy - h, x1: b.x1, y1: cy + h };
}
