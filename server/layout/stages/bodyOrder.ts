/**
 * Stage 4, body order: the body's units in reading order by XY-cut (xycut.ts), replaced by the
 * content stream's order (on a scan: the recognizer's line order) where that reads like a page
 * (streamOrder.ts); the header band first,
 * then the body, the footer band and side-margin text.
 */
import { xyCut } from '../order/xycut';
import { followStream } from '../order/streamOrder';
import type { Place } from '../order/place';
import { lineStreamPosition, ocrLinePosition, type PageState, type PageUnit, type PlacedUnit } from './state';

/** Narrowest vertical gutter a column cut needs, as a share of the body font size… */
const MIN_GUTTER_BODY_SHARE = 0.45;
/** …and in points. */
const MIN_GUTTER_POINTS = 4;
/** Narrowest column a cut may leave, as a share of the page width (indented list levels are not columns). */
const MIN_COLUMN_PAGE_SHARE = 0.18;

export function orderBody(state: PageState): PageState {
  const { lines, gutters, tables } = state;
  const rtl = lines.filter((l) => l.rtl).length * 2 > lines.length;
  const minGutter = Math.max(state.input.stats.bodySize * MIN_GUTTER_BODY_SHARE, MIN_GUTTER_POINTS);
  const streamOf = (o: { unit: PageUnit }) => {
    // A table is where its first cell was drawn; a picture has no place in the text stream.
    if (o.unit.kind === 'table')
      return tables[o.unit.index].spanIndices.length ? Math.min(...tables[o.unit.index].spanIndices) : undefined;
    return lineStreamPosition(state, o.unit) ?? ocrLinePosition(state, o.unit);
  };
  const geo = xyCut(state.body, { minGutter, rtl, minColumnWidth: state.width * MIN_COLUMN_PAGE_SHARE, gutters });
  const body = rtl ? geo : followStream(geo, streamOf, gutters);
  // Every turned line is a place of its own: it never joins another line's block.
  let turned = 0;
  const place = (unit: PageUnit, base: Place): PlacedUnit => ({
    unit,
    place: unit.kind === 'line' && unit.rotated ? { ...base, rotated: turned++ } : base,
  });
  const ordered = [
    ...state.header.map((u) => place(u, { band: 'header', column: '' })),
    ...body.map((o) => place(o.unit, { band: 'body', column: o.column })),
    ...state.footer.map((u) => place(u, { band: 'footer', column: '' })),
    ...state.margin.map((u) => place(u, { band: 'margin', column: '' })),
  ];
  return { ...state, rtl, ordered };
}
