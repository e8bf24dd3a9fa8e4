/**
 * A table as the metrics see it: rows of cells with spans. Both GFM pipe tables and HTML
 * tables (which Markdown writers use when cells span) parse into this one shape.
 */
export interface TableCell {
  text: string;
  rowspan: number;
  colspan: number;
  header: boolean;
}

export interface Table {
  rows: TableCell[][];
}

/** Split one GFM table line into cell texts (outer pipes optional, `\|` is a literal pipe). */
export function splitPipeRow(line: string): string[] {
  let s = line.trim();
  if (s.startsWith('|')) s = s.slice(1);
  if (s.endsWith('|') && !s.endsWith('\\|')) s = s.slice(0, -1);
  const cells: string[] = [];
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\' && s[i + 1] === '|') {
      cur += '|';
      i++;
    } else if (s[i] === '|') {
      cells.push(cur.trim());
      cur = '';
    } else cur += s[i];
  }
  cells.push(cur.trim());
  return cells;
}

export const PIPE_SEPARATOR = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

/** GFM table lines (header, separator, body rows) → Table; the first row is the header. */
export function parsePipeTable(lines: string[]): Table {
  const rows: TableCell[][] = [];
  lines.forEach((line, i) => {
    if (i === 1 && PIPE_SEPARATOR.test(line)) return;
    rows.push(splitPipeRow(line).map((text) => ({ text, rowspan: 1, colspan: 1, header: i === 0 })));
  });
  return { rows };
}

function attr(tag: string, name: string): number {
  const m = new RegExp(`\\b${name}\\s*=\\s*["']?(\\d+)`, 'i').exec(tag);
  const v = m ? parseInt(m[1], 10) : 1;
  return Number.isFinite(v) && v > 0 ? Math.min(v, 1000) : 1;
}

/**
 * HTML `<table>` markup → Table. A small tokenizer, not a full HTML parser: it reads `<tr>`,
 * `<td>`/`<th>` with `rowspan`/`colspan`, and the text between them (inner tags dropped). A
 * nested table's cells are read as text of the enclosing cell.
 */
export function parseHtmlTable(html: string): Table {
  const rows: TableCell[][] = [];
  let row: TableCell[] | undefined;
  let cell: TableCell | undefined;
  let depth = 0;
  const re = /<(\/?)([A-Za-z][A-Za-z0-9]*)([^>]*)>|([^<]+|<)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(html))) {
    if (m[4] !== undefined) {
      if (cell) cell.text += m[4];
      continue;
    }
    const closing = m[1] === '/';
    const name = m[2].toLowerCase();
    if (name === 'table') {
      depth += closing ? -1 : 1;
      if (depth > 1 || (closing && depth >= 1)) continue;
    }
    if (depth > 1) {
      if (cell) cell.text += ' ';
      continue;
    }
    if (name === 'tr') {
      if (!closing) rows.push((row = []));
      else row = undefined;
      cell = undefined;
    } else if (name === 'td' || name === 'th') {
      if (!closing) {
        if (!row) rows.push((row = []));
        cell = { text: '', rowspan: attr(m[3], 'rowspan'), colspan: attr(m[3], 'colspan'), header: name === 'th' };
        row.push(cell);
      } else cell = undefined;
    } else if (cell && (name === 'br' || name === 'p' || name === 'div' || name === 'li')) {
      cell.text += ' ';
    }
  }
  for (const r of rows) for (const c of r) c.text = decodeEntities(c.text).replace(/\s+/g, ' ').trim();
  return { rows: rows.filter((r) => r.length > 0) };
}

function decodeEntities(s: string): string {
  return s
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#(\d+);/g, (_, d: string) => String.fromCodePoint(Math.min(parseInt(d, 10), 0x10ffff)))
    .replace(/&amp;/g, '&');
}

/**
 * The table as a full grid with spans expanded: a cell spanning k grid positions appears k
 * times with its text. Docling-derived ground truth writes spanned cells this way (GFM cannot
 * span), so both sides are expanded before comparing: a converter writing `colspan="2"` and
 * ground truth repeating the text then meet on the same grid.
 */
export function expandSpans(t: Table): Table {
  const grid: (TableCell | undefined)[][] = [];
  t.rows.forEach((row, r) => {
    grid[r] ??= [];
    let c = 0;
    for (const cell of row) {
      while (grid[r][c]) c++;
      for (let dr = 0; dr < cell.rowspan; dr++) {
        // Spans beyond the table's last row are cut, as browsers do.
        if (r + dr >= t.rows.length) break;
        grid[r + dr] ??= [];
        for (let dc = 0; dc < cell.colspan; dc++)
          grid[r + dr][c + dc] = { text: cell.text, rowspan: 1, colspan: 1, header: cell.header };
      }
      c += cell.colspan;
    }
  });
  return { rows: grid.map((row) => Array.from(row, (x) => x ?? { text: '', rowspan: 1, colspan: 1, header: false })) };
}
