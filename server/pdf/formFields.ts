/**
 * Filled-in form fields (issue 31, text the text layer lacks): a form's values live in its
 * widget annotations, not in the page's content stream, so pdf.js's text content has none of
 * them, while every viewer (and Folio's own page image) shows them. An insurance certificate
 * whose whole body is one multi-line text field came out as an empty page. The values of text
 * fields and choice fields become spans at the widget's place, laid out as a viewer lays them
 * out (lines from the top, long lines wrapped at the field's width; a single line centred
 * vertically); check boxes and buttons carry no text. Values are untrusted: capped in length and
 * count, and only ever text.
 */
import type { PDFPageProxy } from 'pdfjs-dist/types/src/display/api';
import type { PdfSpan } from './text';

/** What Folio reads of pdf.js's widget annotation data (a subset of its fields). */
interface WidgetData {
  subtype?: string;
  fieldType?: string | null;
  fieldValue?: unknown;
  rect?: number[];
  hidden?: boolean;
  annotationFlags?: number;
  multiLine?: boolean;
  password?: boolean;
  textAlignment?: number | null;
  defaultAppearanceData?: { fontSize?: number; fontName?: string };
  options?: { exportValue?: unknown; displayValue?: unknown }[];
}

/** Annotation flags (PDF 32000 §12.5.3): Hidden and NoView hide a widget from the page. */
const FLAG_HIDDEN = 2;
const FLAG_NOVIEW = 32;
/** At most this many fields a page, and this many characters a field. */
const MAX_FIELDS = 500;
const MAX_VALUE_CHARS = 10_000;
/** A viewer's padding inside the field's box (points), as pdf.js's appearance uses. */
const PADDING = 2;
/** Line pitch of a multi-line field, in font sizes. */
const LINE_PITCH = 1.15;
/** Average advance of a Helvetica-like glyph, in font sizes: enough to wrap like the viewer. */
const AVG_ADVANCE = 0.5;
/** The font size of an auto-sized (size 0) single-line field, as a share of its height. */
const AUTO_SIZE_SHARE = 0.7;

/** The text a field shows: a text field's value, or a choice field's selected display values. */
function shownValue(a: WidgetData): string | undefined {
  if (a.fieldType === 'Tx' && typeof a.fieldValue === 'string') return a.password ? undefined : a.fieldValue;
  if (a.fieldType === 'Ch') {
    const chosen = (Array.isArray(a.fieldValue) ? a.fieldValue : [a.fieldValue]).filter(
      (v): v is string => typeof v === 'string' && v !== '',
    );
    const display = chosen.map((v) => {
      const o = a.options?.find((x) => x.exportValue === v);
      return typeof o?.displayValue === 'string' ? o.displayValue : v;
    });
    return display.join(', ');
  }
  return undefined;
}

/** Words of `line` wrapped at `width` points for glyphs of `size` (estimated advances). */
function wrap(line: string, width: number, size: number): string[] {
  const max = Math.max(1, Math.floor(width / (size * AVG_ADVANCE)));
  if (line.length <= max) return [line];
  const out: string[] = [];
  let cur = '';
  for (const w of line.split(/\s+/)) {
    if (cur && cur.length + 1 + w.length > max) {
      out.push(cur);
      cur = w;
    } else cur = cur ? `${cur} ${w}` : w;
  }
  if (cur) out.push(cur);
  return out;
}

/** Spans for the values of the page's visible text and choice fields (displayed-page points). */
export async function readFormFieldSpans(page: PDFPageProxy, viewportTransform: number[]): Promise<PdfSpan[]> {
  const annots = ((await page.getAnnotations({ intent: 'display' })) as WidgetData[]).filter(
    (a) => a.subtype === 'Widget',
  );
  const [ta, tb, tc, td, te, tf] = viewportTransform as [number, number, number, number, number, number];
  const apply = (x: number, y: number): [number, number] => [ta * x + tc * y + te, tb * x + td * y + tf];
  const out: PdfSpan[] = [];
  for (const a of annots.slice(0, MAX_FIELDS)) {
    const flags = a.annotationFlags ?? 0;
    if (a.hidden || flags & FLAG_HIDDEN || flags & FLAG_NOVIEW) continue;
    const value = shownValue(a)?.slice(0, MAX_VALUE_CHARS);
    if (!value?.trim() || !Array.isArray(a.rect) || a.rect.length !== 4 || !a.rect.every(Number.isFinite)) continue;
    const [p, q] = [apply(a.rect[0]!, a.rect[1]!), apply(a.rect[2]!, a.rect[3]!)];
    const box = {
      x0: Math.min(p[0], q[0]),
      y0: Math.min(p[1], q[1]),
      x1: Math.max(p[0], q[0]),
      y1: Math.max(p[1], q[1]),
    };
    // Only upright fields on the displayed page: a rotated page's transform turns the box.
    const width = box.x1 - box.x0 - 2 * PADDING;
    const height = box.y1 - box.y0;
    if (width <= 0 || height <= 0) continue;
    const given = a.defaultAppearanceData?.fontSize ?? 0;
    const multi = a.multiLine === true || /[\r\n]/.test(value);
    const size = given > 0 ? given : Math.max(4, Math.min(24, multi ? 12 : height * AUTO_SIZE_SHARE));
    const lines = multi
      ? value.split(/\r\n|\r|\n/).flatMap((l) => (l.trim() ? wrap(l.trim(), width, size) : ['']))
      : [value.replace(/\s+/g, ' ').trim()];
    lines.forEach((text, i) => {
      if (!text) return; // an empty line of a multi-line value: its pitch only
      const w = Math.min(width, text.length * size * AVG_ADVANCE);
      const top = multi ? box.y0 + PADDING + i * size * LINE_PITCH : box.y0 + (height - size) / 2;
      if (top + size > box.y1 + size) return; // past the field's foot: the viewer clips it
      const align = a.textAlignment ?? 0;
      const x0 =
        align === 1 ? box.x0 + (box.x1 - box.x0 - w) / 2 : align === 2 ? box.x1 - PADDING - w : box.x0 + PADDING;
      out.push({
        text,
        bbox: { x0, y0: top, x1: x0 + w, y1: top + size },
        fontSize: size,
        fontName: a.defaultAppearanceData?.fontName ?? '',
        monospace: false,
        angle: 0,
        baseline: top + size * 0.8,
        eol: true,
      });
    });
  }
  return out;
}
