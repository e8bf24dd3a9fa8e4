/**
 * Page headers and footers: a candidate (a block in the top or bottom band) is furniture when a
 * neighbouring page has a block with the same text (digits normalized) at about the same height,
 * or when it is a page number alone.
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
    if (repeated) it.cls = y < 0.5 ? 'page_header' : 'page_footer';
  }
}
