/**
 * Writes the small text PDFs the end-to-end tests convert, with exactly known text and geometry
 * (so a test can resize a box to "the first line" of a paragraph by coordinates):
 *   preview-two-page.pdf  two pages, headings and multi-line paragraphs
 *   preview-xss.pdf       text that would run script if the preview ever treated it as HTML
 *   preview-long.pdf      many pages, for cancelling a conversion
 * A minimal PDF 1.4 writer (base-14 Helvetica fonts, one content stream per page): these files are
 * generated on the fly rather than committed, so they always match the constants below.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TextLine {
  text: string;
  /** Baseline position in points from the page's top-left corner. */
  x: number;
  y: number;
  size: number;
  bold?: boolean;
}

const PAGE_W = 612;
const PAGE_H = 792;

/** PDF literal string: escape backslash and parentheses; keep to Latin-1 (WinAnsi) characters. */
function pdfString(s: string): string {
  return '(' + s.replace(/[\\()]/g, (c) => '\\' + c).replace(/[^\x20-\x7e]/g, '?') + ')';
}

export function writePdf(path: string, pages: TextLine[][]): void {
  const objects: string[] = [];
  const add = (body: string) => {
    objects.push(body);
    return objects.length;
  };
  const catalog = add('');
  const pagesObj = add('');
  const regular = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  const bold = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>');
  const kids: number[] = [];
  for (const lines of pages) {
    const ops = lines
      .map((l) => `BT /${l.bold ? 'F2' : 'F1'} ${l.size} Tf 1 0 0 1 ${l.x} ${PAGE_H - l.y} Tm ${pdfString(l.text)} Tj ET`)
      .join('\n');
    const content = add(`<< /Length ${Buffer.byteLength(ops, 'latin1')} >>\nstream\n${ops}\nendstream`);
    kids.push(
      add(
        `<< /Type /Page /Parent ${pagesObj} 0 R /MediaBox [0 0 ${PAGE_W} ${PAGE_H}] /Resources << /Font << /F1 ${regular} 0 R /F2 ${bold} 0 R >> >> /Contents ${content} 0 R >>`,
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
  writeFileSync(path, Buffer.from(out, 'latin1'));
}

/** Lines of a paragraph at 11 pt with 14 pt leading, starting at baseline `y`. */
function para(lines: string[], y: number): TextLine[] {
  return lines.map((text, i) => ({ text, x: 72, y: y + i * 14, size: 11 }));
}

export const TWO_PAGE = {
  file: 'preview-two-page.pdf',
  headings: ['Alpha Section', 'Beta Section', 'Gamma Section'],
  /** The paragraph the resize test cuts down to its first line. */
  resizeParagraph: {
    lines: [
      'Folio reads this first line of the long paragraph.',
      'The second line continues the same paragraph here.',
      'A third line closes the paragraph with more words.',
    ],
    firstBaseline: 140,
  },
  codeParagraph: ['Reparse this line as code please.'],
};

export const XSS = {
  file: 'preview-xss.pdf',
  payloads: ['<img src=x onerror="window.folioPwned=1">', '<script>window.folioPwned=2</script>', '<img src=x onerror=alert(1)>'],
};

export const LONG = { file: 'preview-long.pdf', pages: 160 };

export function writeFixtures(dir: string): void {
  const t = TWO_PAGE;
  writePdf(join(dir, t.file), [
    [
      { text: t.headings[0]!, x: 72, y: 100, size: 18, bold: true },
      ...para(t.resizeParagraph.lines, t.resizeParagraph.firstBaseline),
      { text: t.headings[1]!, x: 72, y: 230, size: 18, bold: true },
      ...para(['Another paragraph sits under the second heading.', 'It has two lines of ordinary text.'], 262),
    ],
    [
      { text: t.headings[2]!, x: 72, y: 100, size: 18, bold: true },
      ...para(['The second page starts with this paragraph of text.', 'Its last line ends the sentence.'], 140),
      ...para(t.codeParagraph, 200),
    ],
  ]);
  writePdf(join(dir, XSS.file), [
    [
      { text: 'Escaping Check', x: 72, y: 100, size: 18, bold: true },
      ...XSS.payloads.map((p, i) => ({ text: p, x: 72, y: 140 + i * 40, size: 11 })),
    ],
  ]);
  const pages: TextLine[][] = [];
  for (let i = 1; i <= LONG.pages; i++) {
    const lines: TextLine[] = [{ text: `Chapter ${i}`, x: 72, y: 90, size: 18, bold: true }];
    for (let j = 0; j < 30; j++) lines.push({ text: `Line ${j + 1} of page ${i}: the quick brown fox jumps over the lazy dog.`, x: 72, y: 130 + j * 20, size: 11 });
    pages.push(lines);
  }
  writePdf(join(dir, LONG.file), pages);
}
