/**
 * A DrawingML chart part (`chartN.xml`, in a workbook's drawing or on a slide) → a chart item
 * carrying its data, as Docling reads a native chart: the title as the caption, and the plotted
 * numbers as a table with the categories down the first column and one column per series
 * (`| | series 1 | series 2 |`). The values are the chart's own caches (`c:strCache`,
 * `c:numCache`), the numbers the application last drew; nothing is recalculated.
 */
import type { ChartKind, DocItem, OtslCell } from '../model/items';
import type { OfficePackage } from './package';
import { tidy } from './text';
import { descendants, kid, kidPath, kids, textOf, type XmlElement } from './xml';

/** Most points read from one series: a chart is a picture of data, not a second copy of a sheet. */
const MAX_POINTS = 10_000;

/** A number cache's value as the chart shows it in General format ("120", not "120.0"). */
function pointText(v: string): string {
  const t = v.trim();
  if (t === '' || !/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(t)) return tidy(v);
  return String(parseFloat(Number(t).toPrecision(15)));
}

/** The points of a data source (`c:cat`, `c:val`, `c:xVal`, `c:yVal`, `c:tx`): its cache, by index. */
function points(source: XmlElement | undefined): string[] | undefined {
  if (!source) return undefined;
  const cache =
    kidPath(source, 'c:strRef', 'c:strCache') ??
    kidPath(source, 'c:numRef', 'c:numCache') ??
    kid(source, 'c:strLit') ??
    kid(source, 'c:numLit') ??
    kidPath(source, 'c:multiLvlStrRef', 'c:multiLvlStrCache', 'c:lvl');
  if (!cache) {
    const v = kid(source, 'c:v');
    return v ? [tidy(textOf(v))] : undefined;
  }
  const count = Math.min(MAX_POINTS, Number(kid(cache, 'c:ptCount')?.attrs.val ?? 0) || 0);
  const out: string[] = Array.from({ length: count }, () => '');
  for (const pt of kids(cache, 'c:pt')) {
    const i = Number(pt.attrs.idx);
    if (!Number.isInteger(i) || i < 0 || i >= MAX_POINTS) continue;
    while (out.length <= i) out.push('');
    out[i] = pointText(textOf(kid(pt, 'c:v')));
  }
  return out;
}

/** The chart's explicit title (its rich text); an automatic title is not text the chart holds. */
function titleOf(chart: XmlElement | undefined): string {
  const rich = kidPath(chart, 'c:title', 'c:tx', 'c:rich');
  if (!rich) return '';
  return tidy(
    kids(rich, 'a:p')
      .map((p) =>
        descendants(p, 'a:t')
          .map((t) => textOf(t))
          .join(''),
      )
      .join(' '),
  );
}

/**
 * The chart's kind from its plot area's first plot (`c:barChart`, `c:line3DChart`, …), as
 * docling's Office readers classify it: bar and column charts (3-D, stacked) are bar charts,
 * pie, 3-D pie, bar-of-pie and doughnut are pie charts; area, radar, bubble, stock and surface
 * charts are "other". A plot area with no plot says nothing: no kind.
 */
export function chartKind(chartSpace: XmlElement): ChartKind | undefined {
  const plotArea = kidPath(chartSpace, 'c:chart', 'c:plotArea');
  const plot = plotArea && kids(plotArea).find((k) => /^c:\w+Chart$/.test(k.name));
  if (!plot) return undefined;
  const name = plot.name.slice(2).toLowerCase();
  if (name.startsWith('bar')) return 'bar_chart';
  if (name.startsWith('line')) return 'line_chart';
  if (name.startsWith('pie') || name.startsWith('ofpie') || name.startsWith('doughnut')) return 'pie_chart';
  if (name.startsWith('scatter')) return 'scatter_chart';
  return 'other_chart';
}

/** The chart's data as OTSL rows: a header of series names, then a row per category. */
export function chartTable(chartSpace: XmlElement): OtslCell[][] | undefined {
  const plotArea = kidPath(chartSpace, 'c:chart', 'c:plotArea');
  if (!plotArea) return undefined;
  const series = kids(plotArea).flatMap((plot) => kids(plot, 'c:ser'));
  if (series.length === 0) return undefined;
  let categories: string[] = [];
  for (const s of series) {
    const c = points(kid(s, 'c:cat') ?? kid(s, 'c:xVal'));
    if (c) {
      categories = c;
      break;
    }
  }
  const columns = series.map((s) => ({
    name: points(kid(s, 'c:tx'))?.[0] ?? '',
    values: points(kid(s, 'c:val') ?? kid(s, 'c:yVal')) ?? [],
  }));
  const rows = Math.max(categories.length, ...columns.map((c) => c.values.length));
  if (rows === 0) return undefined;
  const cell = (text: string, tag: 'ched' | 'rhed' | 'fcel'): OtslCell =>
    text ? { tag, text } : { tag: 'ecel', text: '' };
  const table: OtslCell[][] = [[cell('', 'ched'), ...columns.map((c) => cell(c.name, 'ched'))]];
  for (let r = 0; r < rows; r++)
    table.push([cell(categories[r] ?? '', 'rhed'), ...columns.map((c) => cell(c.values[r] ?? '', 'fcel'))]);
  return table;
}

/** A chart part → a chart item with its title as the caption and its data as the table. */
export function readChart(pkg: OfficePackage, part: string | undefined): DocItem {
  const item: DocItem = { cls: 'chart', text: '' };
  const space = part && pkg.has(part) ? pkg.xml(part) : undefined;
  if (!space) return item;
  const chart = kid(space, 'c:chart');
  const title = titleOf(chart);
  if (title) item.caption = { cls: 'caption', text: title };
  const table = chartTable(space);
  if (table) item.table = table;
  const kind = chartKind(space);
  if (kind) item.chartKind = kind;
  return item;
}
