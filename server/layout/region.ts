/**
 * Layout of one region (a re-parse): the spans inside a box, shaped by the class the user chose.
 * The page worker's `reparseRegion` (server/pipeline) reads the page and calls `layoutRegion`.
 */
import type { BBox, RegionClass } from '../../common/protocol';
import { toGrid, type DocItem, type OtslCell } from '../model/items';
import type { PageContent, TextSpan } from '../model/content';
import { buildLines, type Line } from './lines/index';
import { joinLines, vocabularyOf } from './lines/normalize';
import { parseMarker } from './blocks/markers';
import { codeText } from './blocks/classify';
import { detectTables } from './tables/index';

export function layoutRegion(
  content: PageContent,
  bbox: BBox,
  cls: RegionClass,
  page: { width: number; height: number },
): DocItem {
  const inIdx: number[] = [];
  content.spans.forEach((s, i) => {
    const cx = (s.bbox.x0 + s.bbox.x1) / 2;
    const cy = (s.bbox.y0 + s.bbox.y1) / 2;
    if (cx >= bbox.x0 && cx <= bbox.x1 && cy >= bbox.y0 && cy <= bbox.y1) inIdx.push(i);
  });
  const spans = inIdx.map((i) => content.spans[i]);
  const lines = buildLines(spans);
  const item: DocItem = { cls, text: '', bbox, grid: toGrid(bbox, page) };
  const vocab = vocabularyOf(lines.map((l) => l.text));
  switch (cls) {
    case 'table': {
      const sub: PageContent = {
        ...content,
        spans,
        rules: content.rules.filter(
          (r) => r.x0 >= bbox.x0 - 2 && r.x1 <= bbox.x1 + 2 && r.y0 >= bbox.y0 - 2 && r.y1 <= bbox.y1 + 2,
        ),
        graphics: [],
      };
      let rows: OtslCell[][] | undefined;
      try {
        rows = detectTables(sub)[0]?.rows;
      } catch {
        rows = undefined;
      }
      item.table = rows ?? tableFromLines(spans);
      break;
    }
    case 'code':
      item.text = codeText({ lines });
      break;
    case 'formula':
      item.text = lines.map((l) => l.text).join(' ');
      break;
    case 'list_item': {
      const m = lines.length ? parseMarker(lines[0].text) : undefined;
      item.text = joinLines([m ? m.rest : (lines[0]?.text ?? ''), ...lines.slice(1).map((l) => l.text)], vocab);
      item.ordered = m?.ordered ?? false;
      item.level = 0;
      break;
    }
    case 'section_header':
      item.text = joinLines(
        lines.map((l) => l.text),
        vocab,
      );
      item.level = 1;
      break;
    case 'picture':
      break;
    default:
      item.text = joinLines(
        lines.map((l) => l.text),
        vocab,
      );
  }
  return item;
}

/** Fallback table: one row per text row, cells where the horizontal gap is wide. */
export function tableFromLines(spans: TextSpan[]): OtslCell[][] {
  // Rows from a line grouping that never splits at gaps: every span of a row, then cut into cells.
  const rowsOfLines = new Map<number, Line[]>();
  const lines = buildLines(spans);
  for (const l of lines) {
    const key = Math.round((l.bbox.y0 + l.bbox.y1) / 2 / Math.max(2, l.fontSize * 0.6));
    const row = rowsOfLines.get(key) ?? [];
    row.push(l);
    rowsOfLines.set(key, row);
  }
  const rows = [...rowsOfLines.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([, ls]) => ls.sort((a, b) => a.bbox.x0 - b.bbox.x0).map((l) => l.text));
  const cols = Math.max(0, ...rows.map((r) => r.length));
  return rows.map((r) => {
    const cells: OtslCell[] = r.map((t) => ({ tag: 'fcel', text: t }));
    while (cells.length < cols) cells.push({ tag: 'ecel', text: '' });
    return cells;
  });
}
