/**
 * Writes the small text PDFs the end-to-end tests convert, with exactly known text and geometry
 * (so a test can resize a box to "the first line" of a paragraph by coordinates):
 *   preview-two-page.pdf  two pages, headings and multi-line paragraphs
 *   preview-xss.pdf       text that would run script if the preview ever treated it as HTML
 *   preview-long.pdf      many pages, for cancelling a conversion
 * Written by the shared test PDF writer (test/helpers/pdfWriter.ts); these files are
 * generated on the fly rather than committed, so they always match the constants below.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writePlacedPdf, type PlacedLine } from '../helpers/pdfWriter';

export type TextLine = PlacedLine;

export function writePdf(path: string, pages: TextLine[][]): void {
  writeFileSync(path, writePlacedPdf(pages.map((lines) => ({ lines }))));
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
  payloads: [
    '<img src=x onerror="window.folioPwned=1">',
    '<script>window.folioPwned=2</script>',
    '<img src=x onerror=alert(1)>',
  ],
};

export const LONG = { file: 'preview-long.pdf', pages: 160 };
/**
 * For cancelling the language-model tool: its whole result comes back in one answer, and 160
 * pages converted in under 3.6 s on a quiet machine, before the test's cancel.
 */
export const AGENT_LONG = { file: 'agents-long.pdf', pages: 1600 };

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
  writeLongPdf(dir, LONG);
}

/** A long born-digital PDF: `Chapter i` and 30 lines a page (fast to convert, many pages). */
export function writeLongPdf(dir: string, long: { file: string; pages: number }): void {
  const pages: TextLine[][] = [];
  for (let i = 1; i <= long.pages; i++) {
    const lines: TextLine[] = [{ text: `Chapter ${i}`, x: 72, y: 90, size: 18, bold: true }];
    for (let j = 0; j < 30; j++)
      lines.push({
        text: `Line ${j + 1} of page ${i}: the quick brown fox jumps over the lazy dog.`,
        x: 72,
        y: 130 + j * 20,
        size: 11,
      });
    pages.push(lines);
  }
  writePdf(join(dir, long.file), pages);
}
