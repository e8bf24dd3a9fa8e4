/**
 * Page layout: spans, rules and images → DocItems in reading order. Named stages over
 * one plain page state (stages/state.ts), each taking the state and returning it with its own
 * fields filled, as Docling's pipeline runs one model after another over the page batch:
 *
 *   tables           ruled, booktabs and aligned tables (tables/), a failure only a warning
 *   contents         a table of contents: one document index (toc/), over any table found there
 *   units            pictures, tables, display formulas out of the text flow; spans by angle
 *   gutters          column gutters, lines built against them, the units the XY-cut orders
 *   furniture bands  header, footer and side-margin text apart from the body
 *   body order       XY-cut (order/xycut.ts), the content stream where it reads like a page
 *   items            blocks, classes, inline math, paragraphs joined across columns
 *   captions         captions nested in their floats; furniture candidates listed
 *
 * Pure computation on plain data: no pdf.js, no I/O, so it runs the same on OCR output.
 */
import { newPageState, type LayoutInput, type LayoutResult, type Stage } from './stages/state';
import { findTables } from './stages/tables';
import { findContentsIndex } from './stages/contents';
import { findUnits } from './stages/units';
import { findColumnGutters } from './stages/gutters';
import { findFurnitureBands } from './stages/furnitureBands';
import { orderBody } from './stages/bodyOrder';
import { buildItems } from './stages/items';
import { placeCaptions } from './stages/captions';

export type { LayoutInput, LayoutResult } from './stages/state';
export { FURNITURE_BAND } from './stages/furnitureBands';
/** One region laid out alone with a class the user chose (a re-parse). */
export { layoutRegion } from './region';

/** The stages in the order they run. */
export const LAYOUT_STAGES: readonly { name: string; run: Stage }[] = [
  { name: 'tables', run: findTables },
  { name: 'contents', run: findContentsIndex },
  { name: 'units', run: findUnits },
  { name: 'gutters', run: findColumnGutters },
  { name: 'furniture bands', run: findFurnitureBands },
  { name: 'body order', run: orderBody },
  { name: 'items', run: buildItems },
  { name: 'captions', run: placeCaptions },
];

export function layoutPage(input: LayoutInput): LayoutResult {
  let state = newPageState(input);
  for (const stage of LAYOUT_STAGES) state = stage.run(state);
  return { items: state.items, furnitureCandidates: state.furnitureCandidates, warnings: state.warnings };
}
