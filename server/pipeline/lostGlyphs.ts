/**
 * Page step: a page whose fonts draw glyphs with no Unicode (pdf/lostGlyphs.ts) is read by OCR
 * once and each text item holding such a glyph's placeholder (a control character) takes the
 * OCR character aligned to it (patchFromOcr); the page's warnings say which items changed.
 */
import type { BBox } from '../../common/protocol';
import type { TextSpan } from '../model/content';
import type { OcrLine } from '../ocr/index';
import { isPlaceholder } from '../pdf/lostGlyphs';
import { recognize } from './ocrBridge';
import { cropRgba } from './crop';
import { patchFromOcr } from './textRepair';
import { laidOut, NOT_TEXT, quoteList, type PageWork } from './state';

const LOST_MIN_SCORE = 0.9;
/** Up to this many items with lost glyphs are read from their own crops, more from one page OCR. */
const LOST_CROP_MAX = 6;

export async function restoreLostGlyphs(w: PageWork): Promise<void> {
  if (w.wantOcr || !w.ocrOk || w.raw.lostGlyphs <= 0) return;
  const items = laidOut(w).items;
  const spans = w.raw.content.spans;
  const symbols = w.raw.lostSymbols;
  const { opts, signal } = w;
  // A lost letter's placeholder; a symbol glyph's (a checkbox, a bullet: pdf/lostGlyphs.ts) is no
  // letter, and OCR would read it as ")" or "l" or hand it a letter of the word before.
  const lostLetter = (ch: string) => isPlaceholder(ch) && !symbols.has(ch);
  // Only items holding a placeholder: a lost glyph elsewhere costs no OCR.
  const suspects = items.filter(
    (it) => it.bbox && !NOT_TEXT.has(it.cls) && !it.parts?.length && [...it.text].some(lostLetter),
  );
  if (!suspects.length) return;
  const scan = await w.scan();
  // A line the recognizer doubts (an old-style "1" alone read as "N") fills nothing.
  const keep = (ls: OcrLine[], dx: number, dy: number) =>
    ls
      .filter((l) => l.score >= LOST_MIN_SCORE)
      .map((l) => ({
        text: l.text.normalize('NFKC').trim(),
        cx: dx + (l.bbox.x0 + l.bbox.x1) / 2 / scan.scale,
        cy: dy + (l.bbox.y0 + l.bbox.y1) / 2 / scan.scale,
      }));
  // Few items: each from its crop; many: the page once.
  const whole =
    suspects.length > LOST_CROP_MAX
      ? keep(
          (await recognize({ data: scan.data, width: scan.width, height: scan.height }, opts.providers, signal)).lines,
          0,
          0,
        )
      : undefined;
  const changed: string[] = [];
  for (const it of suspects) {
    signal?.throwIfAborted();
    const b = placeholderRows(it.bbox!, spans, lostLetter);
    let lines = whole;
    if (!lines) {
      const crop = cropRgba(scan, { x0: b.x0 - 2, y0: b.y0 - 2, x1: b.x1 + 2, y1: b.y1 + 2 });
      lines = keep((await recognize(crop.image, opts.providers, signal)).lines, crop.x0, crop.y0);
    }
    const read = lines
      .filter((l) => l.cx >= b.x0 - 2 && l.cx <= b.x1 + 2 && l.cy >= b.y0 - 2 && l.cy <= b.y1 + 2)
      .map((l) => l.text)
      .join(' ');
    if (!read) continue;
    const text = patchFromOcr(it.text, read, lostLetter);
    if (text === it.text) continue;
    it.text = text;
    changed.push(text);
  }
  if (changed.length)
    w.warnings.push(
      `characters read by OCR where the page's fonts draw glyphs that have no text (a font without a character map): ${quoteList(changed)}`,
    );
}

/**
 * The rows of an item that hold a lost glyph's placeholder: the recognizer reads one line of a
 * two-line title ("LaTeX support for Open Sans / Version 1.1") better alone than in the whole
 * item's crop, where it read the old-style "1.1" as "n.s". The item's box when no span says.
 */
function placeholderRows(box: BBox, spans: TextSpan[], lostLetter: (ch: string) => boolean): BBox {
  const inside = spans.filter((s) => {
    const cx = (s.bbox.x0 + s.bbox.x1) / 2;
    const cy = (s.bbox.y0 + s.bbox.y1) / 2;
    return cx >= box.x0 - 1 && cx <= box.x1 + 1 && cy >= box.y0 - 1 && cy <= box.y1 + 1 && [...s.text].some(lostLetter);
  });
  if (!inside.length) return box;
  // The whole rows: a placeholder run of old-style figures is only x-height tall.
  const y0 = Math.min(...inside.map((s) => s.bbox.y0));
  const y1 = Math.max(...inside.map((s) => s.bbox.y1));
  const row = spans.filter((s) => {
    const cx = (s.bbox.x0 + s.bbox.x1) / 2;
    return cx >= box.x0 - 1 && cx <= box.x1 + 1 && s.bbox.y1 > y0 && s.bbox.y0 < y1;
  });
  return {
    x0: box.x0,
    x1: box.x1,
    y0: Math.max(box.y0, Math.min(...row.map((s) => s.bbox.y0))),
    y1: Math.min(box.y1, Math.max(...row.map((s) => s.bbox.y1))),
  };
}
