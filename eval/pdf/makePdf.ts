/**
 * A minimal, valid, uncompressed PDF writer for generated test documents: text pages in the
 * standard Helvetica font, one content stream per page, a correct xref table. Uncompressed on
 * purpose: the fuzzer can delete one page's objects, and the benchmark can write 1,000 pages in
 * a few milliseconds without a PDF library.
 */

export interface GenPage {
  /** Heading drawn at 18 pt at the top. */
  heading: string;
  /** Paragraph lines drawn at 11 pt below it. */
  lines: string[];
}

function pdfString(s: string): string {
  // Helvetica with the standard encoding: keep to printable ASCII, escape the three specials.
  return '(' + s.replace(/[^\x20-\x7e]/g, '?').replace(/([\\()])/g, '\\$1') + ')';
}

function contentStream(p: GenPage): string {
  const ops = ['BT', '/F1 18 Tf', '72 740 Td', `${pdfString(p.heading)} Tj`, '/F1 11 Tf', '0 -30 Td', '14 TL'];
  for (const l of p.lines) ops.push(`${pdfString(l)} Tj`, 'T*');
  ops.push('ET');
  return ops.join('\n');
}

/** Write the pages as a PDF (US Letter). Object layout: 1 catalog, 2 pages, 3 font, then page/content pairs. */
export function makePdf(pages: GenPage[]): Buffer {
  const objs: string[] = [];
  const kids = pages.map((_, i) => `${4 + 2 * i} 0 R`).join(' ');
  objs.push('<< /Type /Catalog /Pages 2 0 R >>');
  objs.push(`<< /Type /Pages /Kids [${kids}] /Count ${pages.length} >>`);
  objs.push('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  pages.forEach((p, i) => {
    const content = contentStream(p);
    objs.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${5 + 2 * i} 0 R >>`,
    );
    objs.push(`<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`);
  });
  const parts: string[] = ['%PDF-1.4\n%\xe2\xe3\xcf\xd3\n'];
  let offset = Buffer.byteLength(parts[0], 'latin1');
  const offsets: number[] = [];
  objs.forEach((body, i) => {
    const s = `${i + 1} 0 obj\n${body}\nendobj\n`;
    offsets.push(offset);
    offset += Buffer.byteLength(s, 'latin1');
    parts.push(s);
  });
  const xref = [
    'xref',
    `0 ${objs.length + 1}`,
    '0000000000 65535 f ',
    ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n `),
  ].join('\n');
  parts.push(`${xref}\ntrailer\n<< /Size ${objs.length + 1} /Root 1 0 R >>\nstartxref\n${offset}\n%%EOF\n`);
  return Buffer.from(parts.join(''), 'latin1');
}

const WORDS =
  'the of and a to in is for that on with as by this are be from or at an which it its have has not was were can these their more also use used two one into such than other between each new based'.split(
    ' ',
  );

/** Page `n` of a generated document: a numbered heading and `lineCount` lines of varied words. */
export function textPage(n: number, lineCount = 40): GenPage {
  const lines: string[] = [];
  let x = n * 7919 + 1;
  for (let l = 0; l < lineCount; l++) {
    const words: string[] = [];
    for (let w = 0; w < 12; w++) {
      x = (x * 1103515245 + 12345) % 2147483648;
      words.push(WORDS[x % WORDS.length]);
    }
    lines.push(words.join(' '));
  }
  // Headings differ in words, not only in the number, so no converter mistakes them for a
  // running page header repeated on every page.
  const a = WORDS[(n * 31) % WORDS.length];
  const b = WORDS[(n * 17 + 5) % WORDS.length];
  return { heading: `${n} On ${a} ${b} topics`, lines };
}
