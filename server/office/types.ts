/** What every structured reader (DOCX, PPTX, XLSX, HTML, Markdown, CSV) hands back: pages of Folio's items. */
import type { DocItem } from '../model/items';

export interface StructuredPage {
  /** 1-based: the document (1), a slide, a sheet. */
  page: number;
  /** Page size in points (the section's, the slide's; Letter when the format has none). */
  width: number;
  height: number;
  items: DocItem[];
  /** What the page is, for the view and headings: `slide 3`, `sheet "Sales"`. */
  label?: string;
}

export interface StructuredDocument {
  format: StructuredFormat;
  pages: StructuredPage[];
  warnings: string[];
}

export type StructuredFormat = 'docx' | 'pptx' | 'xlsx' | 'html' | 'md' | 'csv';

export interface ReadOptions {
  /**
   * Saves an embedded picture (its bytes and lower-case extension: png, jpeg, gif) and answers its
   * path relative to the Markdown's folder; absent or undefined = the picture stays a placeholder.
   */
  savePicture?: (data: Uint8Array, ext: string) => string | undefined;
  /** Most cells read from one workbook (XLSX, CSV); past it the rest is left out with a warning. */
  maxCells?: number;
}

export const LETTER = { width: 612, height: 792 };
