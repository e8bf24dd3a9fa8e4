/**
 * Writes small, valid PDFs for tests: text in the standard Helvetica / Helvetica-Bold fonts, any
 * page size, any page count (a 2,000-page file is ~1 MB). Real PDF syntax with a correct xref
 * table, so pdf.js parses it without repair. One writer for every test that needs a made-up PDF.
 */

/** A line of text placed by its baseline, in points from the page's top-left corner. */
export interface PlacedLine {
  text: string;
  x: number;
  y: number;
  size: number;
  bold?: boolean;
}

export interface PlacedPage {
  width?: number;
  height?: number;
  lines: PlacedLine[];
}

export interface PdfPageSpec {
  width?: number;
  height?: number;
  /** Lines drawn top-down at `fontSize` (default 12) with 1.35× leading, from (72, 72) below the top. */
  lines: string[];
  fontSize?: number;
}

/** PDF literal string: escape backslash and parentheses; keep to Latin-1 (WinAnsi) characters. */
function pdfString(s: string): string {
  return '(' + s.replace(/[\\()]/g, (c) => '\\' + c).replace(/[^\x20-\x7e]/g, '?') + ')';
}

/** Pages of placed lines → PDF bytes. */
export function writePlacedPdf(pages: PlacedPage[]): Buffer {
  const objects: string[] = [];
  const add = (body: string) => {
    objects.push(body);
    return objects.length; // object number
  };
  const catalog = add(''); // filled below
  const pagesObj = add('');
  const regular = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  const bold = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>');
  const kids: number[] = [];
  for (const p of pages) {
    const w = p.width ?? 612;
    const h = p.height ?? 792;
    const ops = p.lines
      .map(
        (l) =>
          `BT /${l.bold ? 'F2' : 'F1'} ${l.size} Tf 1 0 0 1 ${l.x} ${(h - l.y).toFixed(2)} Tm ${pdfString(l.text)} Tj ET`,
      )
      .join('\n');
    const content = add(`<< /Length ${Buffer.byteLength(ops, 'latin1')} >>\nstream\n${ops}\nendstream`);
    kids.push(
      add(
        `<< /Type /Page /Parent ${pagesObj} 0 R /MediaBox [0 0 ${w} ${h}] /Resources << /Font << /F1 ${regular} 0 R /F2 ${bold} 0 R >> >> /Contents ${content} 0 R >>`,
      ),
    );
  }
  objects[catalog - 1] = `<< /Type /Catalog /Pages ${pagesObj} 0 R >>`;
  objects[pagesObj - 1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`;
  let out = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** Pages of plain lines (top-down, fixed leading) → PDF bytes. */
export function makePdf(pages: PdfPageSpec[]): Buffer {
  return writePlacedPdf(
    pages.map((p) => {
      const size = p.fontSize ?? 12;
      return {
        width: p.width,
        height: p.height,
        lines: p.lines.map((text, i) => ({ text, x: 72, y: 72 + i * size * 1.35, size })),
      };
    }),
  );
}

/** A text page with a heading-like first line and a paragraph, numbered. */
export function loremPage(n: number): PdfPageSpec {
  return {
    lines: [
      `Section ${n}`,
      `This is page ${n} of a generated document. It has a few lines of text so that`,
      `the layout stage sees a real paragraph with several lines and ordinary words.`,
      `The quick brown fox jumps over the lazy dog ${n} times before breakfast.`,
    ],
  };
}

/** A page whose content stream is given as bytes, optionally already FlateDecode-compressed. */
export interface StreamPage {
  width: number;
  height: number;
  /** The content stream as stored in the file. */
  stream: Buffer;
  /** Set when `stream` is zlib-compressed (the reader inflates it). */
  flate?: boolean;
  /** Index into `shared` instead of `stream`: pages that point at one shared content stream. */
  sharedStream?: number;
}

/**
 * Pages with raw (possibly compressed) content streams → PDF bytes, with a correct xref table.
 * For resource-limit tests: a huge MediaBox, or a small file whose stream inflates to hundreds
 * of megabytes (a decompression bomb).
 */
export function writeStreamPdf(pages: StreamPage[], shared: { stream: Buffer; flate?: boolean }[] = []): Buffer {
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let size = 0;
  const push = (b: Buffer) => {
    parts.push(b);
    size += b.length;
  };
  push(Buffer.from('%PDF-1.5\n%\xe2\xe3\xcf\xd3\n', 'latin1'));
  // Object numbers: 1 catalog, 2 pages, 3 font, then shared streams, then per page (content, page).
  const font = 3;
  const sharedBase = 4;
  const pageBase = sharedBase + shared.length;
  const obj = (n: number, head: string, stream?: Buffer) => {
    offsets[n] = size;
    push(Buffer.from(`${n} 0 obj\n${head}\n`, 'latin1'));
    if (stream) {
      push(Buffer.from('stream\n', 'latin1'));
      push(stream);
      push(Buffer.from('\nendstream\n', 'latin1'));
    }
    push(Buffer.from('endobj\n', 'latin1'));
  };
  const kids = pages.map((_, i) => pageBase + i * 2 + 1);
  obj(1, '<< /Type /Catalog /Pages 2 0 R >>');
  obj(2, `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${pages.length} >>`);
  obj(font, '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  shared.forEach((s, i) =>
    obj(sharedBase + i, `<< /Length ${s.stream.length}${s.flate ? ' /Filter /FlateDecode' : ''} >>`, s.stream),
  );
  pages.forEach((p, i) => {
    const content = pageBase + i * 2;
    const contentRef = p.sharedStream !== undefined ? sharedBase + p.sharedStream : content;
    obj(content, `<< /Length ${p.stream.length}${p.flate ? ' /Filter /FlateDecode' : ''} >>`, p.stream);
    obj(
      content + 1,
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${p.width} ${p.height}] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${contentRef} 0 R >>`,
    );
  });
  const count = pageBase + pages.length * 2;
  const xref = size;
  let table = `xref\n0 ${count}\n0000000000 65535 f \n`;
  for (let n = 1; n < count; n++) table += `${String(offsets[n] ?? 0).padStart(10, '0')} 00000 n \n`;
  table += `trailer\n<< /Size ${count} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  push(Buffer.from(table, 'latin1'));
  return Buffer.concat(parts);
}
