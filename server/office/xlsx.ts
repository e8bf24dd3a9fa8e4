/**
 * An Excel workbook (XLSX, SpreadsheetML) → Folio's items, a sheet a page: the sheet's name as a
 * heading, then each block of filled cells (cells joined side by side or through a merge) as one
 * table, top to bottom, as Docling splits a sheet. Formulas give their cached values (Folio never
 * evaluates anything, and macros in an .xlsm are never opened); merged ranges are OTSL spans. A
 * workbook past the cell limit is read up to it, with a warning.
 */
import type { DocItem, OtslCell } from '../model/items';
import type { OfficePackage } from './package';
import { LETTER, type ReadOptions, type StructuredDocument, type StructuredPage } from './types';
import { kid, kids, textOf, type XmlElement } from './xml';

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

/** A number as Excel shows it in General format (15 significant digits, no float noise). */
function numberText(v: string): string {
  const n = Number(v);
  if (!Number.isFinite(n)) return v;
  return String(parseFloat(n.toPrecision(15)));
}

function cellValue(c: XmlElement, strings: string[]): string {
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
    default:
      return v ? numberText(textOf(v)) : '';
  }
}

/** The blocks of filled cells (4-neighbours, merges joined), each its bounding box, top to bottom then left to right. */
function blocks(cells: Map<string, string>, merges: Merge[]): Merge[] {
  const key = (r: number, c: number) => `${r},${c}`;
  const filled = new Set(cells.keys());
  for (const m of merges)
    for (let r = m.r0; r <= m.r1; r++)
      for (let c = m.c0; c <= m.c1; c++) if (filled.has(key(m.r0, m.c0))) filled.add(key(r, c));
  const seen = new Set<string>();
  const out: Merge[] = [];
  for (const start of filled) {
    if (seen.has(start)) continue;
    const box = { r0: Infinity, c0: Infinity, r1: -1, c1: -1 };
    const stack = [start];
    seen.add(start);
    while (stack.length) {
      const k = stack.pop()!;
      const [r, c] = k.split(',').map(Number);
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
  }
  return out.sort((a, b) => a.r0 - b.r0 || a.c0 - b.c0);
}

function tableOf(box: Merge, cells: Map<string, string>, merges: Merge[]): DocItem {
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
  return { cls: 'table', text: '', table: rows };
}

export function readXlsx(pkg: OfficePackage, opts: ReadOptions = {}): StructuredDocument {
  const main = [...pkg.rels('').values()].find((r) => r.type === 'officeDocument' && !r.external)?.target;
  const bookPart = main && pkg.has(main) ? main : 'xl/workbook.xml';
  const book = pkg.xml(bookPart);
  if (!book) throw new Error('it has no xl/workbook.xml: it is not an Excel workbook');
  const rels = pkg.rels(bookPart);
  const strings = sharedStrings(pkg, [...rels.values()].find((r) => r.type === 'sharedStrings')?.target);
  const maxCells = opts.maxCells ?? DEFAULT_MAX_CELLS;
  let cellsRead = 0;
  let truncated = false;
  const warnings: string[] = [];
  const pages: StructuredPage[] = [];
  for (const s of kids(kid(book, 's:sheets'), 's:sheet')) {
    const rel = rels.get(s.attrs['r:id'] ?? '');
    const name = s.attrs.name ?? `Sheet${pages.length + 1}`;
    if (!rel || rel.external || rel.type !== 'worksheet' || !pkg.has(rel.target)) continue; // chart sheets: no cells
    const sheet = pkg.xml(rel.target);
    const cells = new Map<string, string>();
    for (const row of kids(kid(sheet, 's:sheetData'), 's:row')) {
      for (const c of kids(row, 's:c')) {
        if (cellsRead >= maxCells) {
          truncated = true;
          break;
        }
        const at = cellRef(c.attrs.r ?? '');
        if (!at) continue;
        const value = cellValue(c, strings);
        if (value.trim() === '') continue;
        cells.set(`${at.row},${at.col}`, value);
        cellsRead++;
      }
      if (truncated) break;
    }
    const merges: Merge[] = [];
    for (const m of kids(kid(sheet, 's:mergeCells'), 's:mergeCell')) {
      const [a, b] = (m.attrs.ref ?? '').split(':');
      const p = cellRef(a ?? '');
      const q = cellRef(b ?? a ?? '');
      if (p && q) merges.push({ r0: p.row, c0: p.col, r1: q.row, c1: q.col });
    }
    const items: DocItem[] = [{ cls: 'section_header', level: 1, text: name }];
    for (const box of blocks(cells, merges)) {
      const area = (box.r1 - box.r0 + 1) * (box.c1 - box.c0 + 1);
      if (area > maxCells) {
        warnings.push(
          `sheet "${name}": a block of ${area} cells is past the cell limit of ${maxCells} and was left out`,
        );
        continue;
      }
      items.push(tableOf(box, cells, merges));
    }
    pages.push({ page: pages.length + 1, ...LETTER, items, label: `sheet "${name}"` });
    if (truncated) break;
  }
  if (truncated)
    warnings.push(
      `the workbook has more than ${maxCells} filled cells: only the first ${maxCells} were read (sheets after "${pages[pages.length - 1]?.label ?? ''}" are left out)`,
    );
  if (pages.length === 0) throw new Error('it has no worksheet');
  return { format: 'xlsx', pages, warnings };
}
