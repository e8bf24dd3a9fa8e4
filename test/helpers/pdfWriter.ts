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
      .map((l) => `BT /${l.bold ? 'F2' : 'F1'} ${l.size} Tf 1 0 0 1 ${l.x} ${(h - l.y).toFixed(2)} Tm ${pdfString(l.text)} Tj ET`)
      .join('\n');
    const content = add(`<< /Length ${Buffer.byteLength(ops, 'latin1')} >>\nstream\n${ops}\nendstream`);
    kids.push(
      add(`<< /Type /Page /Parent ${pagesObj} 0 R /MediaBox [0 0 ${w} ${h}] /Resources << /Font << /F1 ${regular} 0 R /F2 ${bold} 0 R >> >> /Contents ${content} 0 R >>`),
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
      return { width: p.width, height: p.height, lines: p.lines.map((text, i) => ({ text, x: 72, y: 72 + i * size * 1.35, size })) };
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
