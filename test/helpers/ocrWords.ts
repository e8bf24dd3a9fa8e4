/** Test helper: plain OCR word boxes, as the recognizer hands them to layout (12 pt, font "ocr"). */
import type { TextSpan } from '../../server/model/content';

/** The words of one line, each [text, x0, x1], at row y; the last ends the line. */
export function ocrRow(y: number, words: [string, number, number][]): TextSpan[] {
  return words.map(([text, x0, x1], i) => ({
    text,
    bbox: { x0, y0: y, x1, y1: y + 12 },
    fontSize: 12,
    fontName: 'ocr',
    monospace: false,
    eol: i === words.length - 1,
  }));
}
