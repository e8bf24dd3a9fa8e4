/**
 * The document model every engine produces and the one DocTags serializer / parser / Markdown
 * converter consume. A page is a list of items in reading order; each item is one DocTags
 * element. The pipeline engine builds items from the text layer or OCR; the VLM's output is
 * parsed into the same items. Nothing here imports anything.
 */
import type { BBox, GridBox, RegionClass } from '../../common/protocol';

/** One OTSL cell token and its text (empty for `ecel`, `lcel`, `ucel`, `xcel`). */
export type OtslTag = 'fcel' | 'ecel' | 'lcel' | 'ucel' | 'xcel' | 'ched' | 'rhed' | 'srow';

export interface OtslCell {
  tag: OtslTag;
  text: string;
}

/** A piece of running text: plain text, or inline math as LaTeX (written `$…$` in Markdown). */
export interface InlinePart {
  math: boolean;
  text: string;
}

/**
 * The chart kinds Folio names: docling's picture classes its Office readers use (a column or bar
 * chart, stacked or not, is a bar chart; a doughnut is a pie; area, radar, bubble and the rest are
 * "other").
 */
export const CHART_KINDS = ['bar_chart', 'line_chart', 'pie_chart', 'scatter_chart', 'other_chart'] as const;
export type ChartKind = (typeof CHART_KINDS)[number];

export function isChartKind(s: string): s is ChartKind {
  return (CHART_KINDS as readonly string[]).includes(s);
}

/** Docling's Markdown line for a class: `bar_chart` → "Bar chart". */
export function chartKindLine(kind: ChartKind): string {
  const words = kind.replace(/_/g, ' ');
  return words[0]!.toUpperCase() + words.slice(1);
}

export interface DocItem {
  cls: RegionClass;
  /** Location on the 0–500 grid; absent when the DocTags had none. */
  grid?: GridBox;
  /** Exact box in PDF points when the engine knows it (the pipeline does; parsed DocTags do not). */
  bbox?: BBox;
  /** Text content (already normalized: ligatures expanded, lines unwrapped, dehyphenated). */
  text: string;
  /**
   * Running text with inline math (text, list_item, caption, footnote): the parts in order.
   * `text` then holds the same content with math as `$…$`. DocTags writes it as docling's inline
   * group: `<inline>` holding `<text>` and `<formula>` children.
   */
  parts?: InlinePart[];
  /** section_header: 1-based level. list_item: nesting depth, 0 = top level. */
  level?: number;
  /** list_item: true when it belongs to an ordered list. */
  ordered?: boolean;
  /**
   * list_item of an ordered list: its label as the document writes it ("212.", "a.", "(iii)").
   * Absent when unknown; Markdown then numbers the list itself. DocTags carries it as the start
   * of the item's text (listLabel.ts).
   */
  marker?: string;
  /** code: language name when known (DocTags writes it as `<_Python_>`). */
  language?: string;
  /** table: OTSL rows (each row a list of cells; `<nl>` ends a row). */
  table?: OtslCell[][];
  /** table / picture / code / formula: its caption, serialized inside the element as docling does. */
  caption?: DocItem;
  /**
   * chart: what kind of chart it is, when the document says so (an Office chart part's plot type),
   * in docling's picture classes. DocTags writes it as that class's token inside `<chart>`, the
   * DoclingDocument as a classification annotation, Markdown as Docling's line ("Bar chart").
   */
  chartKind?: ChartKind;
  /** picture: path of the saved image, relative to the Markdown file's folder. */
  imagePath?: string;
  /**
   * Stable id of the region this item came from (`p<page>-r<index>`), carried into
   * `Region.id`; assigned by the converter when absent.
   */
  id?: string;
}

export interface DocPage {
  /** 1-based page number. */
  page: number;
  /** Page size in points when known (needed to turn grid boxes back into points). */
  width?: number;
  height?: number;
  items: DocItem[];
}

export interface GridMapping {
  width: number;
  height: number;
}

/** Points → 0–500 grid, docling-core's rule: divide by the page size, × 500, round, clamp to 0–499. */
export function toGrid(b: BBox, page: GridMapping): GridBox {
  const f = (v: number, size: number) => Math.min(499, Math.max(0, Math.round((v / size) * 500)));
  return [f(b.x0, page.width), f(b.y0, page.height), f(b.x1, page.width), f(b.y1, page.height)];
}

/** 0–500 grid → points (the inverse of `toGrid`, up to rounding). */
export function fromGrid(g: GridBox, page: GridMapping): BBox {
  return {
    x0: (g[0] / 500) * page.width,
    y0: (g[1] / 500) * page.height,
    x1: (g[2] / 500) * page.width,
    y1: (g[3] / 500) * page.height,
  };
}

/** Plain text of inline parts, math written `$…$`. */
export function partsToText(parts: InlinePart[]): string {
  return parts.map((p) => (p.math ? `$${p.text.trim()}$` : p.text)).join('');
}
