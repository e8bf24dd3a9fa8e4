/**
 * Words read by OCR inside a picture that stays a picture (a banner with the company's name on
 * it): layout gives text inside a figure to the figure, and a picture's Markdown is only its
 * image, so the words would be lost again. Large ones follow the picture as a paragraph of their
 * own; small ones (a sign in a photograph) stay the picture's.
 */
import type { PageContent } from '../model/content';
import { toGrid, type DocItem } from '../model/items';
import { laidOut, quoteList, type MissingLine, type PageWork } from './state';
import { boundsOf } from '../../common/bbox';

/**
 * Words in a picture are its title (a banner's name, a logo's) when they are large in it: their
 * line this share of the picture's height or more. Smaller words are part of the scene (a sign
 * in a photograph): the picture keeps them.
 */
const TITLE_HEIGHT_SHARE = 0.2;

/**
 * Page step: the words OCR found in pictures kept as text after them (`keepTextOfPictures`), and
 * the page's warning naming the text OCR added.
 */
export function pictureText(w: PageWork): void {
  if (w.wantOcr) return;
  const { found } = w;
  const left = found.length ? keepTextOfPictures(laidOut(w).items, found, w.raw.content) : [];
  const added = found.filter((l) => !left.includes(l));
  if (added.length)
    w.warnings.push(
      `text read by OCR where the page shows text that its text layer lacks (a picture or outlines): ${quoteList(added.map((l) => l.text))}`,
    );
}

/** Adds the pictures' titles after them; returns the lines left to their pictures. */
export function keepTextOfPictures(items: DocItem[], found: MissingLine[], content: PageContent): MissingLine[] {
  const left: MissingLine[] = [];
  const placed = (l: MissingLine) =>
    items.some((it) => it.cls !== 'picture' && it.cls !== 'chart' && it.text.includes(l.text));
  for (let k = items.length - 1; k >= 0; k--) {
    const pic = items[k];
    if ((pic.cls !== 'picture' && pic.cls !== 'chart') || !pic.bbox) continue;
    const b = pic.bbox;
    let inside = found
      .filter((l) => {
        const cx = (l.bbox.x0 + l.bbox.x1) / 2;
        const cy = (l.bbox.y0 + l.bbox.y1) / 2;
        return cx >= b.x0 && cx <= b.x1 && cy >= b.y0 && cy <= b.y1 && !placed(l);
      })
      .sort((p, q) => p.bbox.y0 - q.bbox.y0 || p.bbox.x0 - q.bbox.x0);
    const ph = b.y1 - b.y0;
    left.push(...inside.filter((l) => (l.lineHeight ?? l.bbox.y1 - l.bbox.y0) < ph * TITLE_HEIGHT_SHARE));
    inside = inside.filter((l) => (l.lineHeight ?? l.bbox.y1 - l.bbox.y0) >= ph * TITLE_HEIGHT_SHARE);
    if (!inside.length) continue;
    const bbox = boundsOf(inside.map((l) => l.bbox));
    const text = inside.map((l) => l.text).join(' ');
    items.splice(k + 1, 0, { cls: 'text', text, bbox, grid: toGrid(bbox, content) });
  }
  return left;
}
