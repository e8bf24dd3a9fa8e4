/**
 * Stage 4, body order: the body's units in reading order by XY-cut (xycut.ts), replaced by the
 * content stream's order (on a scan: the recognizer's line order) where that reads like a page
 * (streamOrder.ts); side notes in the margin beside the text block (sideNotes.ts) taken out
 * first and read next to their paragraph; the header band first, then the body, the footer band
 * and side-margin text.
 */
import type { BBox } from '../../../common/protocol';
import { boundsOf } from '../../../common/bbox';
import { xyCut, type CutOptions, type Ordered } from '../order/xycut';
import { followStream } from '../order/streamOrder';
import { findSideNotes, noteInsertAt, type NoteUnit, type SideNote } from '../order/sideNotes';
import { buildBlocks, type BlockLine } from '../blocks/index';
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
  const notes = rtl ? [] : findSideNotes(state.body.map(noteUnit), state.edges);
  const inNote = new Set(notes.flatMap((n) => n.units.map((u) => u.unit)));
  const main = state.body.filter((u) => !inNote.has(u));
  const opts = { minGutter, rtl, minColumnWidth: state.width * MIN_COLUMN_PAGE_SHARE, gutters };
  const geo = textColumnsCut(main, state, opts);
  const body = withNotes(rtl ? geo : followStream(geo, streamOf, gutters), notes);
  // Every turned line is a place of its own: it never joins another line's block.
  let turned = 0;
  const place = (unit: PageUnit, base: Place): PlacedUnit => ({
    unit,
    place: unit.kind === 'line' && unit.rotated ? { ...base, rotated: turned++ } : base,
  });
  const ordered = [
    ...state.header.map((u) => place(u, { band: 'header', column: '' })),
    ...body.map((o) => place(o.unit, { band: 'body', column: o.column, ...(o.aside ? { aside: true } : {}) })),
    ...state.footer.map((u) => place(u, { band: 'footer', column: '' })),
    // Margin text is a place per line: a stamp turned up the margin, or one margin line number
    // (lineNumbers.ts), never joined into a block with the next.
    ...state.margin.map((u) => ({ unit: u, place: { band: 'margin' as const, column: '', rotated: turned++ } })),
  ];
  return { ...state, rtl, ordered };
}

/**
 * XY-cut with each block of text set in columns (tables/notTable.ts) standing as one unit, as it
 * stood when it was taken for a table; inside, its lines are cut along its own gutters, so its
 * columns read one after the other.
 */
function textColumnsCut(main: PageUnit[], state: PageState, opts: CutOptions): Ordered<PageUnit>[] {
  const regions = state.textColumns;
  const within = (u: PageUnit, k: number) => {
    const b = regions[k]!.bbox;
    const x = (u.bbox.x0 + u.bbox.x1) / 2;
    const y = (u.bbox.y0 + u.bbox.y1) / 2;
    return u.kind === 'line' && !u.rotated && x >= b.x0 && x <= b.x1 && y >= b.y0 && y <= b.y1;
  };
  const members = regions.map((_, k) => main.filter((u) => within(u, k)));
  const grouped = new Set<PageUnit>();
  type Proxy = { kind: 'textColumns'; index: number; bbox: BBox; cutBox: BBox };
  const proxies: Proxy[] = [];
  members.forEach((us, k) => {
    if (us.length < 2 || us.some((u) => grouped.has(u))) return;
    for (const u of us) grouped.add(u);
    const b = boundsOf(us.map((u) => u.bbox));
    proxies.push({ kind: 'textColumns', index: k, bbox: b, cutBox: b });
  });
  if (proxies.length === 0) return xyCut(main, opts);
  const geo = xyCut<PageUnit | Proxy>([...main.filter((u) => !grouped.has(u)), ...proxies], opts);
  return geo.flatMap((o): Ordered<PageUnit>[] => {
    const u = o.unit;
    if (u.kind !== 'textColumns') return [{ unit: u, column: o.column }];
    const region = regions[u.index]!;
    const inner = xyCut(members[u.index]!, { ...opts, gutters: region.gutters, textColumns: [region] });
    return inner.map((i) => ({ unit: i.unit, column: `${o.column}t${u.index}.${i.column}` }));
  });
}

/** A body unit as side-note detection sees it: upright lines carry their text. */
function noteUnit(u: PageUnit): NoteUnit & { unit: PageUnit } {
  return { unit: u, bbox: u.bbox, kind: u.kind, text: u.kind === 'line' && !u.rotated ? u.line.text : undefined };
}

/**
 * The side notes put into the body's order, each after (or, a label, before) the paragraph it
 * sits beside, in a column of its own. Paragraphs are the blocks the items stage will build from
 * the same lines (blocks/index.ts).
 */
/** A body unit in order; `aside`: a side note's. */
type BodyUnit = Ordered<PageUnit> & { aside?: boolean };

function withNotes(body: Ordered<PageUnit>[], notes: SideNote<NoteUnit & { unit: PageUnit }>[]): BodyUnit[] {
  if (!notes.length) return body;
  const paragraphs: { first: number; last: number }[] = [];
  let run: { line: BlockLine; at: number }[] = [];
  const flush = () => {
    const at = new Map(run.map((r) => [r.line.line, r.at]));
    for (const b of buildBlocks(run.map((r) => r.line)))
      paragraphs.push({ first: at.get(b.lines[0]!)!, last: at.get(b.lines[b.lines.length - 1]!)! });
    run = [];
  };
  body.forEach((o, at) => {
    if (o.unit.kind === 'line')
      run.push({ line: { line: o.unit.line, place: { band: 'body', column: o.column } }, at });
    else flush();
  });
  flush();
  const ordered = body.map((o) => noteUnit(o.unit));
  const inserts = notes.map((n, k) => ({ at: noteInsertAt(n, ordered, paragraphs), k, n }));
  const out: BodyUnit[] = [];
  for (let i = 0; i <= body.length; i++) {
    for (const ins of inserts.filter((x) => x.at === i))
      for (const u of ins.n.units) out.push({ unit: u.unit, column: `note${ins.k}`, aside: true });
    if (i < body.length) out.push(body[i]!);
  }
  return out;
}
