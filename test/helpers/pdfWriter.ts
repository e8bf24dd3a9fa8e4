/**
 * Writes small, valid PDFs for tests: text pages in the standard Helvetica font, any page size,
 * any page count (a 2,000-page file is ~1 MB). Real PDF syntax with a correct xref table, so
 * pdf.js parses it without repair.
 */

export interface PdfPageSpec {
  width?: number;
  height?: number;
  /** Lines drawn top-down at 12 pt with 16 pt leading, from (72, height − 72). */
  lines: string[];
  fontSize?: number;
}

function escapePdfString(s: string): string {
  return s.replace(/[\\()]/g, (c) => '\\' + c);
}

export function makePdf(pages: PdfPageSpec[], opts: { pageCountOverride?: number } = {}): Buffer {
  const objects: string[] = [];
  const add = (body: string) => {
    objects.push(body);
    return objects.length; // object number
  };
  const catalog = add(''); // filled below
  const pagesObj = add('');
  const font = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  const kids: number[] = [];
  for (const p of pages) {
    const w = p.width ?? 612;
    const h = p.height ?? 792;
    const size = p.fontSize ?? 12;
    const ops = p.lines
      .map((line, i) => `BT /F1 ${size} Tf 72 ${(h - 72 - i * size * 1.35).toFixed(2)} Td (${escapePdfString(line)}) Tj ET`)
      .join('\n');
    const content = add(`<< /Length ${Buffer.byteLength(ops, 'latin1')} >>\nstream\n${ops}\nendstream`);
    kids.push(add(`<< /Type /Page /Parent ${pagesObj} 0 R /MediaBox [0 0 ${w} ${h}] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${content} 0 R >>`));
  }
  objects[catalog - 1] = `<< /Type /Catalog /Pages ${pagesObj} 0 R >>`;
  objects[pagesObj - 1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${opts.pageCountOverride ?? kids.length} >>`;
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
