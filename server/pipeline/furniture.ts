/**
 * Page headers and footers: a candidate (a block in the top or bottom band) is furniture when a
 * neighbouring page has a block with the same text (digits normalized) at about the same height,
 * or when it is a page number alone; on a page without neighbours, by its form (`furnitureByForm`).
 */
import type { PageAnalysis } from './types';
import type { DocItem } from '../doctags/types';

export function furnitureKey(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKC')
    .replace(/\d+/g, '#')
    .replace(/\s+/g, ' ')
    .trim();
}

/** "12", "- 12 -", "Page 3", "3 of 10", "3/10", "iv", "Seite 2". */
export function isPageNumber(text: string): boolean {
  const t = text.trim().toLowerCase();
  return (
    /^[-–—(\[]?\s*\d{1,4}\s*[-–—)\]]?$/.test(t) ||
    /^(page|p\.|pg\.?|seite|página|pagina)\s*\d{1,4}(\s*(of|\/|von|de)\s*\d{1,4})?$/.test(t) ||
    /^\d{1,4}\s*(of|\/)\s*\d{1,4}$/.test(t) ||
    /^[ivxlc]{1,6}$/.test(t)
  );
}

function similar(a: string, b: string): boolean {
  if (a === b) return true;
  if (Math.abs(a.length - b.length) > Math.max(a.length, b.length) * 0.2) return false;
  if (a.length > 200 || b.length > 200) return false;
  // Levenshtein on short strings: running headers vary by a word or a date.
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length] <= Math.max(a.length, b.length) * 0.15;
}

function relY(it: DocItem, p: PageAnalysis): number {
  return it.bbox ? (it.bbox.y0 + it.bbox.y1) / 2 / p.height : 0.5;
}

export function markFurniture(pages: PageAnalysis[], index: number): void {
  const page = pages[index];
  if (!page) return;
  const alone = pages.filter(Boolean).length === 1;
  for (const ci of page.furnitureCandidates) {
    const it = page.items[ci];
    if (!it || it.cls === 'page_header' || it.cls === 'page_footer') continue;
    const y = relY(it, page);
    const key = furnitureKey(it.text);
    let repeated = isPageNumber(it.text);
    for (let k = 0; k < pages.length && !repeated && key.length > 0; k++) {
      const other = pages[k];
      if (k === index || !other) continue;
      for (const oi of other.furnitureCandidates) {
        const o = other.items[oi];
        if (!o) continue;
        if (Math.abs(relY(o, other) - y) > 0.04) continue;
        if (similar(furnitureKey(o.text), key)) {
          repeated = true;
          break;
        }
      }
    }
    // A page alone (a one-page document, or one page converted by itself) has no neighbour to
    // repeat: its furniture is recognised by position, size and form.
    if (!repeated && alone) repeated = furnitureByForm(it, page, rowMate(page, ci));
    if (repeated) it.cls = y < 0.5 ? 'page_header' : 'page_footer';
  }
}

/** Stamps a platform or publisher puts on every page it serves, whatever the document. */
const STAMP_RE =
  /(^|\b)(downloaded from|provided by|licen[cs]ed to|this (article|paper|document) is protected|all rights reserved|accepted manuscript|author'?s? (accepted )?manuscript|not the version of record|preprint (submitted|under review)|©|\(c\)\s*(19|20)\d\d|copyright\s*(©\s*)?(19|20)\d\d)|https?:\/\/\S+\s+on\s+\d/i;

/** Another furniture candidate shares the row (a running head set left and right). */
function rowMate(page: PageAnalysis, ci: number): boolean {
  const a = page.items[ci]?.bbox;
  if (!a) return false;
  return page.furnitureCandidates.some((oi) => {
    const b = oi !== ci ? page.items[oi]?.bbox : undefined;
    if (!b) return false;
    const overlapY = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
    return overlapY > 0.5 * Math.min(a.y1 - a.y0, b.y1 - b.y0) && (b.x0 >= a.x1 || b.x1 <= a.x0);
  });
}

/** A citation line: volume, issue, pages, a year in parentheses, "et al.". */
const CITATION_RE = /\b(vol\.?|volume|no\.|issue|pp\.)\s*\d|\(\s*(19|20)\d\d\s*\)|\bet al\.?$|\b\d{1,4}\s*[–-]\s*\d{1,4}\b.*\b(19|20)\d\d\b|\b(19|20)\d\d\b.*\b\d{1,4}\s*[–-]\s*\d{1,4}\b/i;

/**
 * Furniture of a page without neighbours: a stamp by its words (anywhere in the bands or the side
 * margins); anything turned up a side margin outside the body; a short running head at the top
 * (not a heading, not a sentence) that has the form of one: set left and right on one row, led or
 * ended by a page number, or a citation line (journal, volume, pages, year). A short line at the
 * top is not enough: pages with small margins start their body there.
 * Bottom lines other than stamps and page numbers are left as they are: footnotes live there.
 */
export function furnitureByForm(it: DocItem, page: PageAnalysis, hasRowMate = false): boolean {
  const text = it.text.trim();
  if (!text || !it.bbox) return false;
  if (STAMP_RE.test(text) && text.length <= 300) return true;
  // Turned up a side margin: a tall, narrow box at the page's edge.
  const side = it.bbox.y1 - it.bbox.y0 > 2 * (it.bbox.x1 - it.bbox.x0) && (it.bbox.x1 <= page.width * 0.15 || it.bbox.x0 >= page.width * 0.85);
  if (side) return text.length <= 200;
  const y = relY(it, page);
  if (y >= 0.5 || it.cls === 'section_header' || it.cls === 'title' || it.cls === 'list_item') return false;
  const words = text.split(/\s+/).length;
  if (text.length > 90 || words > 14 || /[.!?]["'”’)]*$/u.test(text.replace(/\bet al\.$/, 'et al'))) return false;
  const numbered = /^\d{1,4}\s+\S|\S\s+\d{1,4}$/.test(text);
  return hasRowMate || numbered || CITATION_RE.test(text);
}
