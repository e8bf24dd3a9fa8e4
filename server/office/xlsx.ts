/**
 * An Excel workbook (XLSX, SpreadsheetML) → Folio's items, a sheet a page: the sheet's name as a
 * heading, then each block of filled cells (cells joined side by side or through a merge) as one
 * table, with the sheet's pictures and charts (their data as a table, chart.ts), ordered by their
 * top row, as Docling splits a sheet. Formulas give their cached values (Folio never evaluates
 * anything, and macros in an .xlsm are never opened); a number in a date or time format is that
 * date (`2024-01-05 00:00:00`, as Docling writes it); merged ranges are OTSL spans. Hidden sheets
 * are left out (as Docling leaves them out of its Markdown). A workbook past the cell limit is
 * read up to it, with a warning.
 */
import type { DocItem, OtslCell } from '../model/items';
import { readChart } from './chart';
import { commentItem, commentTime } from './comments';
import type { OfficePackage, Relationship } from './package';
import { pictureExt } from './text';
import { LETTER, type ReadOptions, type StructuredDocument, type StructuredPage } from './types';
import { descendants, kid, kids, textOf, type XmlElement } from './xml';

export const DEFAULT_MAX_CELLS = 1_000_000;

interface Merge {
  r0: number;
  c0: number;
  r1: number;
  c1: number;
}

/** "B12" → {row: 11, col: 1} (0-based). */
export function cellRef(ref: string): { row: number; col: number } | undefined {
  const m = /^\$?([A-Z]{1,3})\$?(\d+)$/i.exec(ref);
  if (!m) return undefined;
  let col = 0;
  for (const ch of m[1].toUpperCase()) col = col * 26 + (ch.charCodeAt(0) - 64);
  return { row: Number(m[2]) - 1, col: col - 1 };
}

function sharedStrings(pkg: OfficePackage, part: string | undefined): string[] {
  const root = part ? pkg.xml(part) : undefined;
  return kids(root, 's:si').map((si) => {
    const t = kid(si, 's:t');
    if (t) return textOf(t);
    return kids(si, 's:r')
      .map((r) => textOf(kid(r, 's:t')))
      .join('');
  });
}

/** Built-in number formats that show a date or a time (ECMA-376 §18.8.30; 27–36 and 50–58 are the East Asian ones). */
const BUILTIN_DATE_FORMATS = new Set([
  14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 45, 46, 47, 50, 51, 52, 53, 54, 55, 56,
  57, 58,
]);

/** Whether a format code shows a date or time: a d, m, y, h or s outside quotes, escapes and `[colour]` brackets. */
export function isDateFormatCode(code: string): boolean {
  const bare = code
    .split(';')[0]
    .replace(/"[^"]*"/g, '')
    .replace(/[\\_*]./g, '')
    .replace(/\[(?!h\]|hh\]|m\]|mm\]|s\]|ss\])[^\]]*\]/gi, '');
  if (/^general$/i.test(bare.trim())) return false;
  return /[dmyhs]/i.test(bare);
}

/** The cell styles (`s` = index into cellXfs) whose number format shows a date or time. */
function dateStyles(pkg: OfficePackage, part: string | undefined): Set<number> {
  const out = new Set<number>();
  const root = part ? pkg.xml(part) : undefined;
  if (!root) return out;
  const custom = new Map<number, string>();
  for (const f of kids(kid(root, 's:numFmts'), 's:numFmt'))
    custom.set(Number(f.attrs.numFmtId), f.attrs.formatCode ?? '');
  kids(kid(root, 's:cellXfs'), 's:xf').forEach((xf, i) => {
    const id = Number(xf.attrs.numFmtId ?? 0);
    const code = custom.get(id);
    if (code !== undefined ? isDateFormatCode(code) : BUILTIN_DATE_FORMATS.has(id)) out.add(i);
  });
  return out;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/**
 * An Excel serial date as Python writes the value openpyxl reads (`str(datetime)`), which is how
 * Docling prints a date cell: `2024-01-05 00:00:00`, a time alone (serial below 1) `13:30:00`.
 * Serials count days from 1899-12-30 (1904-01-01 in a 1904 workbook); Excel's phantom
 * 1900-02-29 is skipped as openpyxl does. Rounded to the millisecond.
 */
export function serialDateText(serial: number, date1904 = false): string {
  const day = Math.floor(serial);
  let ms = Math.round((serial - day) * 86_400_000);
  let days = day;
  if (ms >= 86_400_000) {
    days += 1;
    ms -= 86_400_000;
  }
  const hh = Math.floor(ms / 3_600_000);
  const mi = Math.floor((ms % 3_600_000) / 60_000);
  const ss = Math.floor((ms % 60_000) / 1000);
  const frac = ms % 1000;
  const time = `${pad(hh)}:${pad(mi)}:${pad(ss)}${frac ? '.' + pad(frac * 1000, 6) : ''}`;
  if (serial >= 0 && serial < 1 && days === 0) return time;
  if (!date1904 && serial > 0 && serial < 60) days += 1;
  const epoch = date1904 ? Date.UTC(1904, 0, 1) : Date.UTC(1899, 11, 30);
  const d = new Date(epoch + days * 86_400_000);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${time}`;
}

/** A number as Excel shows it in General format (15 significant digits, no float noise). */
function numberText(v: string): string {
  const n = Number(v);
  if (!Number.isFinite(n)) return v;
  return String(parseFloat(n.toPrecision(15)));
}

interface CellContext {
  strings: string[];
  dates: Set<number>;
  date1904: boolean;
}

function cellValue(c: XmlElement, ctx: CellContext): string {
  const strings = ctx.strings;
  const t = c.attrs.t ?? 'n';
  const v = kid(c, 's:v');
  switch (t) {
    case 's':
      return strings[Number(textOf(v))] ?? '';
    case 'inlineStr': {
      const is = kid(c, 's:is');
      return kid(is, 's:t')
        ? textOf(kid(is, 's:t'))
        : kids(is, 's:r')
            .map((r) => textOf(kid(r, 's:t')))
            .join('');
    }
    case 'b':
      return textOf(v) === '1' ? 'True' : 'False';
    case 'str':
    case 'e':
      return textOf(v);
    case 'd':
      // An ISO 8601 date cell (Strict workbooks): written as Python writes a datetime.
      return textOf(v).replace('T', ' ').replace(/Z$/, '');
    default: {
      if (!v) return '';
      const n = Number(textOf(v));
      if (Number.isFinite(n) && n >= 0 && ctx.dates.has(Number(c.attrs.s ?? 0)) && n < 2_958_466)
        return serialDateText(n, ctx.date1904);
      return numberText(textOf(v));
    }
  }
}

/** Cells a merged range may cover before Folio stops filling it in (a whole-column merge is a style, not data). */
const MAX_MERGE_CELLS = 100_000;

/**
 * The blocks of filled cells (4-neighbours; every cell of a merged range counts as filled, as
 * Docling counts it), each its bounding box, in the order Docling finds them: by the first cell a
 * row-by-row scan meets.
 */
function blocks(cells: Map<string, string>, merges: Merge[]): Merge[] {
  const key = (r: number, c: number) => `${r},${c}`;
  const filled = new Set(cells.keys());
  for (const m of merges) {
    if ((m.r1 - m.r0 + 1) * (m.c1 - m.c0 + 1) > MAX_MERGE_CELLS) continue;
    for (let r = m.r0; r <= m.r1; r++) for (let c = m.c0; c <= m.c1; c++) filled.add(key(r, c));
  }
  const firstInTop = new Map<Merge, number>();
  const seen = new Set<string>();
  const out: Merge[] = [];
  for (const start of filled) {
    if (seen.has(start)) continue;
    const box = { r0: Infinity, c0: Infinity, r1: -1, c1: -1 };
    const stack = [start];
    seen.add(start);
    let first = Infinity;
    while (stack.length) {
      const k = stack.pop()!;
      const [r, c] = k.split(',').map(Number);
      if (r < box.r0) first = c;
      else if (r === box.r0) first = Math.min(first, c);
      box.r0 = Math.min(box.r0, r);
      box.c0 = Math.min(box.c0, c);
      box.r1 = Math.max(box.r1, r);
      box.c1 = Math.max(box.c1, c);
      for (const [dr, dc] of [
        [1, 0],
        [-1, 0],
        [0, 1],
        [0, -1],
      ]) {
        const n = key(r + dr, c + dc);
        if (filled.has(n) && !seen.has(n)) {
          seen.add(n);
          stack.push(n);
        }
      }
    }
    out.push(box);
    firstInTop.set(box, first);
  }
  return out.sort((a, b) => a.r0 - b.r0 || firstInTop.get(a)! - firstInTop.get(b)!);
}

function tableOf(box: Merge, cells: Map<string, string>, merges: Merge[]): OtslCell[][] {
  const rows: OtslCell[][] = [];
  for (let r = box.r0; r <= box.r1; r++) {
    const row: OtslCell[] = [];
    for (let c = box.c0; c <= box.c1; c++) {
      const m = merges.find((x) => r >= x.r0 && r <= x.r1 && c >= x.c0 && c <= x.c1);
      if (m && (r !== m.r0 || c !== m.c0)) {
        row.push({ tag: r === m.r0 ? 'lcel' : c === m.c0 ? 'ucel' : 'xcel', text: '' });
        continue;
      }
      const text = (cells.get(`${r},${c}`) ?? '').replace(/\s+/g, ' ').trim();
      row.push({ tag: text ? 'fcel' : 'ecel', text });
    }
    rows.push(row);
  }
  return rows;
}

/**
 * A block whose first row is one label merged across several columns at its left edge, over a row
 * of at least two single-column headers, is a titled table: the label is text above the table, as
 * Docling splits a "section label" off a sheet's table.
 */
function splitSectionLabel(rows: OtslCell[][]): { label?: string; rows: OtslCell[][] } {
  if (rows.length < 2 || rows[0].length < 2) return { rows };
  const first = rows[0];
  const filled = first.filter((c) => c.text.trim());
  if (filled.length !== 1 || first[0].text.trim() === '') return { rows };
  const span = 1 + first.slice(1).findIndex((c) => c.tag !== 'lcel');
  const colSpan = span === 0 ? first.length : span;
  const rowSpan = rows[1][0].tag === 'ucel';
  if (colSpan <= 1 || rowSpan) return { rows };
  const second = rows[1];
  const singles = second.filter((c, i) => c.text.trim() && second[i + 1]?.tag !== 'lcel');
  if (singles.length < 2) return { rows };
  return { label: first[0].text, rows: rows.slice(1) };
}

/** Where a drawing's object sits: its anchor's top row and left column (0-based). */
function anchorAt(anchor: XmlElement): { row: number; col: number } {
  const from = kid(anchor, 'xdr:from');
  if (from) return { row: Number(textOf(kid(from, 'xdr:row'))) || 0, col: Number(textOf(kid(from, 'xdr:col'))) || 0 };
  // An absolute anchor: its offset in EMU over Excel's default row (15 pt) and column (64 px) sizes.
  const pos = kid(anchor, 'xdr:pos');
  return { row: Math.floor(Number(pos?.attrs.y ?? 0) / 190_500), col: Math.floor(Number(pos?.attrs.x ?? 0) / 609_600) };
}

interface Placed {
  row: number;
  col: number;
  items: DocItem[];
}

/** The pictures and charts of a sheet's (or chart sheet's) drawing part, each at its anchor. */
function drawingItems(
  pkg: OfficePackage,
  part: string,
  opts: ReadOptions,
  saved: Map<string, string | undefined>,
): Placed[] {
  const root = pkg.xml(part);
  if (!root) return [];
  const rels = pkg.rels(part);
  const out: Placed[] = [];
  const objects = (el: XmlElement, found: DocItem[]) => {
    for (const o of kids(el)) {
      if (o.name === 'xdr:pic') found.push(picture(pkg, rels, o, opts, saved));
      else if (o.name === 'xdr:graphicFrame') {
        const ref = descendants(o, 'c:chart')[0]?.attrs['r:id'];
        const rel = ref ? rels.get(ref) : undefined;
        if (rel && !rel.external) found.push(readChart(pkg, rel.target));
      } else if (o.name === 'xdr:grpSp') objects(o, found);
      else if (o.name === 'mc:AlternateContent') objects(kid(o, 'mc:Choice') ?? kid(o, 'mc:Fallback') ?? o, found);
    }
  };
  for (const a of kids(root)) {
    if (a.name !== 'xdr:twoCellAnchor' && a.name !== 'xdr:oneCellAnchor' && a.name !== 'xdr:absoluteAnchor') continue;
    const found: DocItem[] = [];
    objects(a, found);
    if (found.length) out.push({ ...anchorAt(a), items: found });
  }
  return out;
}

function picture(
  pkg: OfficePackage,
  rels: Map<string, Relationship>,
  pic: XmlElement,
  opts: ReadOptions,
  saved: Map<string, string | undefined>,
): DocItem {
  const id = descendants(pic, 'a:blip')[0]?.attrs['r:embed'];
  const rel = id ? rels.get(id) : undefined;
  const item: DocItem = { cls: 'picture', text: '' };
  if (rel && !rel.external) {
    if (!saved.has(rel.target)) {
      const ext = pictureExt(rel.target);
      const data = ext && opts.savePicture ? pkg.bytesOf(rel.target) : undefined;
      saved.set(rel.target, data && ext ? opts.savePicture?.(data, ext) : undefined);
    }
    const path = saved.get(rel.target);
    if (path) item.imagePath = path;
  }
  return item;
}

/** The drawing part a sheet or chart sheet names (`<drawing r:id>`). */
function drawingOf(pkg: OfficePackage, sheetPart: string, sheet: XmlElement | undefined): string | undefined {
  const id = kid(sheet, 's:drawing')?.attrs['r:id'];
  const rel = id ? pkg.rels(sheetPart).get(id) : undefined;
  return rel && !rel.external && rel.type === 'drawing' ? rel.target : undefined;
}

/**
 * A sheet's review comments in cell order (row by row), as Docling writes them after the sheet:
 * `[author: Name, time: …]: text`. A threaded comment (Excel 365: its legacy copy names a
 * `tc={…}` author) is written from its thread (`threadItems`), with the person's display name
 * and the time to the millisecond.
 */
function sheetComments(pkg: OfficePackage, sheetPart: string, persons: Map<string, string>): DocItem[] {
  const rels = [...pkg.rels(sheetPart).values()].filter((r) => !r.external);
  const threads = new Map<string, DocItem[]>();
  for (const r of rels.filter((x) => x.type === 'threadedComment')) {
    for (const t of kids(pkg.xml(r.target), 'tc:threadedComment')) {
      const ref = t.attrs.ref ?? '';
      const item = commentItem(
        persons.get(t.attrs.personId ?? '') ?? '',
        commentTime(t.attrs.dT ?? '', true),
        textOf(kid(t, 'tc:text')),
      );
      if (item) threads.set(ref, [...(threads.get(ref) ?? []), item]);
    }
  }
  const found: { row: number; col: number; items: DocItem[] }[] = [];
  const seen = new Set<string>();
  for (const r of rels.filter((x) => x.type === 'comments')) {
    const root = pkg.xml(r.target);
    const authors = kids(kid(root, 's:authors'), 's:author').map((a) => textOf(a));
    for (const c of kids(kid(root, 's:commentList'), 's:comment')) {
      const ref = c.attrs.ref ?? '';
      const at = cellRef(ref);
      if (!at || seen.has(ref)) continue;
      seen.add(ref);
      const author = authors[Number(c.attrs.authorId ?? -1)] ?? '';
      const thread = threads.get(ref);
      const text = descendants(kid(c, 's:text') ?? c, 's:t')
        .map((t) => textOf(t))
        .join('');
      // A threaded comment's legacy copy whose thread is missing: its text after "Comment:".
      const own = author.startsWith('tc=')
        ? commentItem('', '', text.split(/Comment:\s*\n/)[1] ?? text)
        : commentItem(author, '', text);
      found.push({ ...at, items: thread ? threadItems(thread) : own ? [own] : [] });
    }
  }
  // A thread with no legacy copy (a file that has only the threaded part) still counts.
  for (const [ref, items] of threads) {
    const at = cellRef(ref);
    if (at && !seen.has(ref)) found.push({ ...at, items: threadItems(items) });
  }
  found.sort((a, b) => a.row - b.row || a.col - b.col);
  return found.flatMap((f) => f.items);
}

/**
 * A thread as Docling writes a cell's comment: its last entry (Excel writes a thread in order,
 * replies after what they answer) in the body. The entries it
 * answers are kept in the furniture layer (as slides' speaker notes are): in the DoclingDocument
 * and DocTags always, in the Markdown with `--keep-furniture` — so nothing of the thread is lost,
 * and the Markdown reads as Docling's (issue 41: Docling's ground truth has the reply alone).
 */
function threadItems(thread: DocItem[]): DocItem[] {
  return thread.map((it, i) => (i < thread.length - 1 ? { ...it, cls: 'page_footer' } : it));
}

/** A sheet's filled cells ("row,col" → text), at most `budget` of them. */
function readCells(
  sheet: XmlElement | undefined,
  ctx: CellContext,
  budget: number,
): { cells: Map<string, string>; truncated: boolean } {
  const cells = new Map<string, string>();
  for (const row of kids(kid(sheet, 's:sheetData'), 's:row')) {
    for (const c of kids(row, 's:c')) {
      if (cells.size >= budget) return { cells, truncated: true };
      const at = cellRef(c.attrs.r ?? '');
      if (!at) continue;
      const value = cellValue(c, ctx);
      if (value.trim() === '') continue;
      cells.set(`${at.row},${at.col}`, value);
    }
  }
  return { cells, truncated: false };
}

export function readXlsx(pkg: OfficePackage, opts: ReadOptions = {}): StructuredDocument {
  const main = [...pkg.rels('').values()].find((r) => r.type === 'officeDocument' && !r.external)?.target;
  const bookPart = main && pkg.has(main) ? main : 'xl/workbook.xml';
  const book = pkg.xml(bookPart);
  if (!book) throw new Error('it has no xl/workbook.xml: it is not an Excel workbook');
  const rels = pkg.rels(bookPart);
  const ctx: CellContext = {
    strings: sharedStrings(pkg, [...rels.values()].find((r) => r.type === 'sharedStrings')?.target),
    dates: dateStyles(pkg, [...rels.values()].find((r) => r.type === 'styles' && !r.external)?.target),
    date1904: ['1', 'true'].includes(kid(book, 's:workbookPr')?.attrs.date1904 ?? ''),
  };
  // Threaded comments' authors (xl/persons/person.xml): id → display name.
  const persons = new Map<string, string>();
  for (const r of rels.values()) {
    if (r.type !== 'person' || r.external) continue;
    for (const p of kids(pkg.xml(r.target), 'tc:person')) persons.set(p.attrs.id ?? '', p.attrs.displayName ?? '');
  }
  const maxCells = opts.maxCells ?? DEFAULT_MAX_CELLS;
  let cellsRead = 0;
  let truncated = false;
  const warnings: string[] = [];
  const pages: StructuredPage[] = [];
  const saved = new Map<string, string | undefined>();
  let hidden = 0;
  for (const s of kids(kid(book, 's:sheets'), 's:sheet')) {
    const rel = rels.get(s.attrs['r:id'] ?? '');
    const name = s.attrs.name ?? `Sheet${pages.length + 1}`;
    if (!rel || rel.external || !pkg.has(rel.target)) continue;
    if (rel.type !== 'worksheet' && rel.type !== 'chartsheet') continue; // dialog and macro sheets: no cells
    // A hidden sheet (a lookup table, a scratch area) is not shown to the reader: Docling keeps it
    // out of its Markdown, and so does Folio.
    if (s.attrs.state === 'hidden' || s.attrs.state === 'veryHidden') {
      hidden++;
      continue;
    }
    const sheet = pkg.xml(rel.target);
    const read = readCells(sheet, ctx, maxCells - cellsRead);
    const cells = read.cells;
    cellsRead += cells.size;
    truncated = read.truncated;
    const merges: Merge[] = [];
    for (const m of kids(kid(sheet, 's:mergeCells'), 's:mergeCell')) {
      const [a, b] = (m.attrs.ref ?? '').split(':');
      const p = cellRef(a ?? '');
      const q = cellRef(b ?? a ?? '');
      if (p && q) merges.push({ r0: p.row, c0: p.col, r1: q.row, c1: q.col });
    }
    // Tables first, then pictures and charts, each at its top row; a stable sort by that row puts
    // a chart above the table it stands over, as Docling orders a sheet.
    const placed: Placed[] = [];
    for (const box of blocks(cells, merges)) {
      const area = (box.r1 - box.r0 + 1) * (box.c1 - box.c0 + 1);
      if (area > maxCells) {
        warnings.push(
          `sheet "${name}": a block of ${area} cells is past the cell limit of ${maxCells} and was left out`,
        );
        continue;
      }
      const { label, rows } = splitSectionLabel(tableOf(box, cells, merges));
      const items: DocItem[] = [];
      if (label) items.push({ cls: 'text', text: label });
      items.push({ cls: 'table', text: '', table: rows });
      placed.push({ row: box.r0, col: box.c0, items });
    }
    const drawing = drawingOf(pkg, rel.target, sheet);
    if (drawing) placed.push(...drawingItems(pkg, drawing, opts, saved));
    placed.sort((a, b) => a.row - b.row);
    const items: DocItem[] = [
      { cls: 'section_header', level: 1, text: name },
      ...placed.flatMap((p) => p.items),
      ...sheetComments(pkg, rel.target, persons),
    ];
    pages.push({ page: pages.length + 1, ...LETTER, items, label: `sheet "${name}"` });
    if (truncated) break;
  }
  if (truncated)
    warnings.push(
      `the workbook has more than ${maxCells} filled cells: only the first ${maxCells} were read (sheets after "${pages[pages.length - 1]?.label ?? ''}" are left out)`,
    );
  if (hidden) warnings.push(`${hidden} hidden sheet(s) left out`);
  if (pages.length === 0) throw new Error(hidden ? 'it has only hidden sheets' : 'it has no worksheet');
  return { format: 'xlsx', pages, warnings };
}
