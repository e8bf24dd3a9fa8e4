/**
 * The page state that the layout stages pass along (server/layout/index.ts): plain data, each
 * stage reads what the stages before it wrote and fills its own fields.
 */
import type { BBox } from '../../../common/protocol';
import type { DocItem } from '../../model/items';
import type { PageContent, TextSpan } from '../../model/content';
import type { DocStats } from '../../model/stats';
import type { Line } from '../lines/index';
import type { Unit } from '../order/xycut';
import type { Gutter } from '../order/streamOrder';
import type { DetectedTable, TextColumns } from '../tables/index';
import type { FormulaFound } from '../math/index';
import type { Place } from '../order/place';
import type { TextEdges } from '../order/sideNotes';

export interface LayoutInput {
  content: PageContent;
  stats: DocStats;
  /** Tiny vector shapes: bullets drawn as shapes. */
  marks: BBox[];
  /** Angle of each span in degrees (0 = upright); spans not upright are laid out one per line. */
  angles?: number[];
}

export interface LayoutResult {
  items: DocItem[];
  furnitureCandidates: number[];
  /** What a stage could not do on this page (a table detection that failed), for the page's warnings. */
  warnings: string[];
}

/** What the XY-cut orders: a text line, or a picture, table or display formula as one block. */
export type PageUnit = Unit &
  (
    | { kind: 'line'; line: Line; rotated: boolean }
    | { kind: 'picture'; index: number }
    | { kind: 'table'; index: number }
    | { kind: 'formula'; index: number }
  );

export interface PlacedUnit {
  unit: PageUnit;
  place: Place;
}

export interface PageState {
  readonly input: LayoutInput;
  readonly width: number;
  readonly height: number;
  /** Content-stream position of every span (pdf.js item order). */
  readonly streamAt: Map<TextSpan, number>;

  /** What went wrong in a stage that the page survived. */
  warnings: string[];

  // tables (the units stage drops the ones that are justified prose)
  tables: DetectedTable[];
  /** Aligned text that is set in columns, not a table: read column by column (order/xycut.ts). */
  textColumns: TextColumns[];

  // units
  pictures: PageContent['graphics'];
  formulas: FormulaFound[];
  /** Text spans left for the line flow, by orientation. */
  upright: TextSpan[];
  rotated: TextSpan[];

  // gutters
  gutters: Gutter[];
  /** The body text block's strong edges; side notes stand outside them (order/sideNotes.ts). */
  edges: TextEdges;
  /** Upright text lines (built against the gutters). */
  lines: Line[];
  units: PageUnit[];

  // furniture bands
  header: PageUnit[];
  footer: PageUnit[];
  margin: PageUnit[];
  body: PageUnit[];

  // body order
  rtl: boolean;
  ordered: PlacedUnit[];

  // items
  items: DocItem[];

  // captions
  furnitureCandidates: number[];
}

export type Stage = (state: PageState) => PageState;

export function newPageState(input: LayoutInput): PageState {
  const streamAt = new Map<TextSpan, number>();
  input.content.spans.forEach((s, i) => streamAt.set(s, i));
  return {
    input,
    width: input.content.width,
    height: input.content.height,
    streamAt,
    warnings: [],
    tables: [],
    textColumns: [],
    pictures: [],
    formulas: [],
    upright: [],
    rotated: [],
    gutters: [],
    edges: {},
    lines: [],
    units: [],
    header: [],
    footer: [],
    margin: [],
    body: [],
    rtl: false,
    ordered: [],
    items: [],
    furnitureCandidates: [],
  };
}

/**
 * Stream position of a line unit: its first run in the content stream. OCR'd words come in the
 * recognizer's order, not a producer's, and rotated lines stand apart: no evidence of reading
 * order for either.
 */
export function lineStreamPosition(state: PageState, u: PageUnit): number | undefined {
  if (u.kind !== 'line' || u.rotated || u.line.spans[0]?.fontName === 'ocr') return undefined;
  let m = Infinity;
  for (const s of u.line.spans) m = Math.min(m, state.streamAt.get(s) ?? Infinity);
  return Number.isFinite(m) ? m : undefined;
}

/**
 * Position of an OCR'd line in the recognizer's line order (server/ocr/order.ts: an XY-cut of the
 * deskewed page that cuts at the widest gap, not along the page's gutters). Not a producer's
 * stream, but it saw the page whole: a centred author line over the middle column of a scan sits
 * under the title there, where the gutter-led cut of layout reads it as that column's first line.
 * Used for the body's order only, and only where it reads like a page (streamOrder.ts).
 */
export function ocrLinePosition(state: PageState, u: PageUnit): number | undefined {
  if (u.kind !== 'line' || u.rotated || u.line.spans[0]?.fontName !== 'ocr') return undefined;
  let m = Infinity;
  for (const s of u.line.spans) m = Math.min(m, state.streamAt.get(s) ?? Infinity);
  return Number.isFinite(m) ? m : undefined;
}

export function area(b: BBox): number {
  return Math.max(0, b.x1 - b.x0) * Math.max(0, b.y1 - b.y0);
}

export function centre(b: BBox): { x: number; y: number } {
  return { x: (b.x0 + b.x1) / 2, y: (b.y0 + b.y1) / 2 };
}

export function inside(p: { x: number; y: number }, b: BBox): boolean {
  return p.x >= b.x0 && p.x <= b.x1 && p.y >= b.y0 && p.y <= b.y1;
}
