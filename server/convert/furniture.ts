/**
 * Page headers and footers: a candidate (a block in the top or bottom band) is furniture when a
 * neighbouring page has a block with the same text (digits normalized) at about the same height,
 * or when it is a page number alone; on a page without neighbours, by its form (`furnitureByForm`).
 */
import type { PageAnalysis } from '../model/analysis';
import type { DocItem } from '../model/items';
import { FURNITURE_BAND } from '../layout/index';
import { markStampZones } from './stampZone';

export function furnitureKey(text: string): string {
  return text.toLowerCase().normalize('NFKC').replace(/\d+/g, '#').replace(/\s+/g, ' ').trim();
}

/** "12", "- 12 -", "Page 3", "3 of 10", "3/10", "iv", "Seite 2". */
export function isPageNumber(text: string): boolean {
  const t = text.trim().toLowerCase();
  return (
    /^[-–—([]?\s*\d{1,4}\s*[-–—)\]]?$/.test(t) ||
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
    for (let j = 1; j <= b.length; j++)
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
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
  if (alone) {
    markStampBlocks(page);
    markStampZones(page);
  }
}

/** Lines of one stamp block stand at most this many line heights apart. */
const STAMP_BLOCK_GAP = 1;

/**
 * A stamp set as a block of several band lines ("This is the author's version of the work. It
 * is posted at … / for your personal use. Not for redistribution. The definitive version was
 * published in … / ACM, 2016, pp. 42–43" beside "BibTeX, Word, EndNote, RIS"): the lines chained
 * to a stamp line, each within a line's height of the next and overlapping it across, are the
 * stamp's too. Only band candidates are chained, so the body above the block stays.
 */
function markStampBlocks(page: PageAnalysis): void {
  const cands = page.furnitureCandidates.map((ci) => page.items[ci]).filter((it): it is DocItem => !!it?.bbox);
  const block = new Set(
    cands.filter((it) => isFurniture(it) && STAMP_RE.test(it.text) && it.text.length <= STAMP_MAX_CHARS),
  );
  for (let grown = block.size > 0; grown;) {
    grown = false;
    for (const it of cands) {
      if (block.has(it)) continue;
      const a = it.bbox!;
      const near = [...block].some((o) => {
        const b = o.bbox!;
        const gap = Math.max(b.y0 - a.y1, a.y0 - b.y1);
        const h = Math.max(a.y1 - a.y0, b.y1 - b.y0);
        const across = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0) > 0 || Math.abs(a.y0 - b.y0) < h / 2;
        return gap <= STAMP_BLOCK_GAP * h && across;
      });
      if (!near) continue;
      block.add(it);
      grown = true;
      if (!isFurniture(it)) it.cls = relY(it, page) < 0.5 ? 'page_header' : 'page_footer';
    }
  }
}

function isFurniture(it: DocItem): boolean {
  return it.cls === 'page_header' || it.cls === 'page_footer';
}

/**
 * Stamps a platform or publisher puts on every page it serves, whatever the document. "©" stands
 * anywhere: after a space there is no word boundary before it ("… Presentation · © 2019 …").
 */
const STAMP_RE =
  /(^|\b)(downloaded from|download date\s*:|provided by|licen[cs]ed to|this (article|paper|document) is protected|all rights reserved|accepted manuscript|author['’]?s? (accepted )?manuscript|author['’]?s? version of the work|for (your )?personal use|not for redistribution|the definitive version (was|is|will be) published|the final publication is available|not the version of record|preprint (submitted|under review)|published under (a )?(cc|creative commons)\b|\(c\)\s*(19|20)\d\d|copyright\s*(©\s*)?(19|20)\d\d)|©|https?:\/\/\S+\s+on\s+\d/i;

/**
 * A stamp is at most this long: the authorarchive package's three-line block ("This is the
 * author's version of the work. It is posted at <URL> for your personal use. Not for
 * redistribution. The definitive version was published in …, doi: …") runs to 330 characters.
 */
const STAMP_MAX_CHARS = 400;

/** A candidate more than this many times as tall as its row mate is a block of lines, not a line. */
const ROW_LINE_MAX_RATIO = 2;

/**
 * Another furniture candidate shares the row (a running head set left and right): 'page' when
 * that mate is a page number ("16 … 4. MISCELLANEOUS MATHEMATICAL FEATURES"), 'other' for any
 * other mate, undefined for none.
 */
function rowMate(page: PageAnalysis, ci: number): 'page' | 'other' | undefined {
  const a = page.items[ci]?.bbox;
  if (!a) return undefined;
  let mate: 'page' | 'other' | undefined;
  for (const oi of page.furnitureCandidates) {
    const o = oi !== ci ? page.items[oi] : undefined;
    const b = o?.bbox;
    if (!b) continue;
    const overlapY = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
    // A block several lines tall beside a one-line page number is not a line of the band set
    // left and right (a university's logo, its name and faculty read from the outlines, beside
    // "1/9" at an exam's foot): it is judged by its own form.
    if (a.y1 - a.y0 > ROW_LINE_MAX_RATIO * (b.y1 - b.y0)) continue;
    if (overlapY > 0.5 * Math.min(a.y1 - a.y0, b.y1 - b.y0) && (b.x0 >= a.x1 || b.x1 <= a.x0))
      mate = isPageNumber(o.text) ? 'page' : (mate ?? 'other');
  }
  return mate;
}

/**
 * A page reference inside a longer band line ("The TECkit Language  Page 1 of 11", "2 sur 7"), a
 * revision, part or document number ("Rev: 20", "Revision 2.4", "P/N 119-036", "Doc. No. 4711"),
 * or a date a printer or a document system stamps ("March 29, 2004", "06/12/2023, 14:12",
 * "2014-03-07"). Only judged on lines in the bands that are not sentences.
 */
const PAGE_REF_RE =
  /\b(page|seite|página|pagina|p\.)\s*\d{1,4}\s*(of|\/|von|de|sur)\s*\d{1,4}\b|^\d{1,4}\s+(sur|von|de|of)\s+\d{1,4}$/i;
const DOC_NUMBER_RE =
  /\b(rev(ision)?\.?\s*:?\s*\d[\w.]*|p\/n\s*:?\s*[\w-]*\d[\w-]*|(part|doc(ument)?)\.?\s*(no\.?|number|#)\s*:?\s*[\w-]*\d[\w-]*)\b/i;
const MONTHS =
  'jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|aug(ust)?|sep(t(ember)?)?|oct(ober)?|nov(ember)?|dec(ember)?';
const DATE_RE = new RegExp(
  `\\b((${MONTHS})\\.?\\s+(\\d{1,2},?\\s+)?(19|20)\\d\\d|\\d{1,2}\\.?\\s+(${MONTHS})\\.?\\s+(19|20)\\d\\d|\\d{1,2}[./]\\d{1,2}[./](19|20)?\\d\\d|(19|20)\\d\\d-\\d\\d-\\d\\d)\\b`,
  'i',
);

/** A line a document system or a printer stamps in its bands: a page reference, a number, a date (a month and a year: "Nov. 2002"). */
export function isBandStamp(text: string): boolean {
  return PAGE_REF_RE.test(text) || DOC_NUMBER_RE.test(text) || DATE_RE.test(text);
}

/** A citation line: volume, issue, pages, a year in parentheses, "et al.", a closing volume(issue) ("… d’économique 2018 51(2)"). */
const CITATION_RE =
  /\b\d{1,4}\(\d{1,3}\)\s*$|\b(vol\.?|volume|no\.|issue|pp\.)\s*\d|\(\s*(19|20)\d\d\s*\)|\bet al\.?$|\b\d{1,4}\s*[–-]\s*\d{1,4}\b.*\b(19|20)\d\d\b|\b(19|20)\d\d\b.*\b\d{1,4}\s*[–-]\s*\d{1,4}\b/i;

/**
 * Furniture of a page without neighbours: a stamp by its words (anywhere in the bands or the side
 * margins); anything turned up a side margin outside the body; a short running head at the top
 * (not a heading, not a sentence) that has the form of one: set left and right on one row, led or
 * ended by a page number, a citation line (journal, volume, pages, year), or alone over a clear
 * gap. A short line at the top with the body right under it is not enough: pages with small
 * margins start their body there. At the foot, where footnotes live, only a chapter–page number,
 * a line with a row mate or a citation line not led by a footnote mark.
 */
export function furnitureByForm(it: DocItem, page: PageAnalysis, mate?: 'page' | 'other'): boolean {
  const hasRowMate = mate !== undefined;
  const text = it.text.trim();
  if (!text || !it.bbox) return false;
  if (STAMP_RE.test(text) && text.length <= STAMP_MAX_CHARS) return true;
  // Turned up a side margin: a tall, narrow box at the page's edge.
  const side =
    it.bbox.y1 - it.bbox.y0 > 2 * (it.bbox.x1 - it.bbox.x0) &&
    (it.bbox.x1 <= page.width * 0.15 || it.bbox.x0 >= page.width * 0.85);
  if (side) return text.length <= 200;
  const y = relY(it, page);
  // A section number read as a list label ("4. MISCELLANEOUS MATHEMATICAL FEATURES") beside the
  // page number at the top: the running head of a book's section, not a list.
  const numberedHead = it.cls === 'list_item' && mate === 'page' && y < 0.5;
  if (it.cls === 'section_header' || it.cls === 'title' || (it.cls === 'list_item' && !numberedHead)) return false;
  const words = text.split(/\s+/).length;
  // A line far over the text in the top band may be as long as a proceedings' line ("Proc. of the
  // 9th Int. Conference on Digital Audio Effects (DAFx-06), Montreal, Canada, September 18-20, 2006").
  const far = farOverText(it, page);
  // A line sharing its band row with the page number ("Wie kommen Sie zu einem barrierefreien
  // PDF?" … "4", a publisher's address line … "14") is the running head or foot whatever mark
  // ends it (a chapter's title may be a question) and as long as a publisher's line. A footnote
  // led by its mark is not.
  const besidePage = mate === 'page' && !/^[\d*†‡§¶]/u.test(text);
  const long = far || besidePage;
  if (text.length > (long ? FAR_MAX_CHARS : 90) || words > (long ? FAR_MAX_WORDS : 14)) return false;
  if (besidePage) return true;
  // A journal's citation line may end in a full stop ("… Publication date: August 2018.").
  const citation = CITATION_RE.test(text) && !/^[\d*†‡§¶]/u.test(text);
  // A few words beside another band line may end in an abbreviation's stop ("Isr. J. Math.").
  const abbreviated = hasRowMate && words <= ROW_MATE_MAX_WORDS_WITH_STOP;
  // A title a browser cut short ("… des évaluations l...") ends in an ellipsis, not a sentence.
  const truncated = /(\.\.\.|…)$/u.test(text);
  // A firm's name ends in its legal form's stop ("Antenna House, Inc."): a name, not a sentence
  // ("The survey was funded by Acme, Inc." is one).
  const unstopped = text
    .replace(/\bet al\.$/, 'et al')
    .replace(COMPANY_END_RE, (m, _f, at: number) => (isName(text.slice(0, at)) ? '' : m));
  if (!citation && !abbreviated && !truncated && /[.!?]["'”’)]*$/u.test(unstopped)) return false;
  // A page reference, a revision or part number or a date in a line of a few words: what a
  // document system prints in its footer ("Jonathan Kew  March 29, 2004  Rev: 20"), not prose.
  // Not a footnote led by its mark ("1 Received March 3, 2004"); "2 sur 7" is a page reference.
  const stamped = PAGE_REF_RE.test(text) || (isBandStamp(text) && !/^[\d*†‡§¶]/u.test(text));
  // At the foot: a chapter–page number ("7-45"), or a short line sharing its row with another
  // band line ("Journal of Heat Transfer" … "PREPRINT FOR REVIEW / 1") or a citation line
  // ("J. ACM, Vol. 37, No. 4, Article 111."). A footnote fills its row alone and is a sentence.
  if (y >= 0.5)
    return (
      /^\d{1,3}\s*[-–]\s*\d{1,4}$/.test(text) || hasRowMate || citation || stamped || centredAtFoot(it, page, text)
    );
  const numbered = /^\d{1,4}\s+\S|\S\s+\d{1,4}$/.test(text);
  return hasRowMate || numbered || citation || stamped || standsAlone(it, page) || far;
}

/** A line far over the text, or beside the page number, has at most this many characters and words. */
const FAR_MAX_CHARS = 140;
const FAR_MAX_WORDS = 22;

/** White space under a line in the header band, in its own heights, beyond which it stands apart from any text block under it. */
const HEADER_BAND_MIN_GAP = 2;

/**
 * A line in the top band with more than two of its heights of white space under it, set at the
 * text's left edge ("2019/04, Online-Kapitel zum Buch: »Barrierefreie PDF-Dokumente erstellen«"
 * 31 pt over the text): a running head. The first line of a page's text block runs on at line
 * spacing, and a paragraph or a caption stands at most about a line's height over what follows
 * it; a heading or a sentence never gets here (furnitureByForm).
 */
function farOverText(it: DocItem, page: PageAnalysis): boolean {
  const b = it.bbox!;
  if (b.y1 > FURNITURE_BAND * page.height) return false;
  let gap = Infinity;
  for (const o of page.items) {
    const c = o.bbox;
    if (!c || o === it || c.y0 < b.y1 - 0.5) continue;
    gap = Math.min(gap, c.y0 - b.y1);
  }
  return Number.isFinite(gap) && gap >= HEADER_BAND_MIN_GAP * (b.y1 - b.y0);
}

/** A legal form closing a firm's name, with its full stop. */
const COMPANY_END_RE = /,?\s+(Inc|Ltd|Co|Corp|LLC|L\.L\.C|Pty|plc|S\.A|S\.p\.A|N\.V|B\.V|e\.V)\.$/;

/** Capitalised words only (and "&", "and", "of", "the"): a name. */
function isName(text: string): boolean {
  return text.split(/\s+/).every((w) => /^[\p{Lu}\d&]/u.test(w) || /^(and|of|the|und|de)$/.test(w));
}

/** A band line with a row mate and at most this many words may end in a full stop. */
const ROW_MATE_MAX_WORDS_WITH_STOP = 4;

/** White space under a running head, in its own heights: more than a paragraph's break. */
const RUNNING_HEAD_MIN_GAP = 1;
/** A running head set right or centred starts this share of the text's width in from its left edge. */
const RUNNING_HEAD_INSET = 0.2;
/** …and its middle is at least this share of the page's width from the left. */
const RUNNING_HEAD_MIN_MIDDLE = 0.4;

/** A lone line at the foot lies this low on the page (its middle; PTP's "typeset using PTPTeX.cls" under the footnotes at 85.7 %)… */
const FOOT_LINE_MIN_Y = 0.84;
/** …and has at most this many words. */
const FOOT_LINE_MAX_WORDS = 8;

/**
 * A short line alone at the very foot, centred or set right under the text with a clear line's
 * height of white space over it ("Proof: page numbers may be temporary" on aomart's proofs,
 * "American Institute of Aeronautics and Astronautics" under AIAA's page number), or a few words
 * with a web link there: what a class or a publisher prints on every page. A footnote starts at the text's left edge, and a paragraph is not alone.
 */
function centredAtFoot(it: DocItem, page: PageAnalysis, text: string): boolean {
  if (it.cls !== 'text' || relY(it, page) < FOOT_LINE_MIN_Y) return false;
  if (text.split(/\s+/).length > FOOT_LINE_MAX_WORDS || /^[\d*†‡§¶\u00b9\u00b2\u00b3\u2070-\u2079]/u.test(text))
    return false;
  // A site's link under the text ("Sprouts - http://sprouts.aisnet.org/9-37"): a publisher's footer.
  return standsAlone(it, page, false) || /\bhttps?:\/\/\S|\bwww\.\S/.test(text);
}

/**
 * A short line alone at the top, set right or centred over the text, with a clear line's height
 * of white space under it ("Using and understanding the Valgrind core", "How to use bzip2",
 * "Shared MIME-info Database"): a running head. A body that starts high on the page starts at
 * the text's left edge ("Before the table" over a table) or runs on at line spacing.
 */
function standsAlone(it: DocItem, page: PageAnalysis, atTop = true): boolean {
  const b = it.bbox!;
  const h = b.y1 - b.y0;
  let gap = Infinity;
  let left = Infinity;
  let right = -Infinity;
  for (const o of page.items) {
    const c = o.bbox;
    if (!c || o === it) continue;
    left = Math.min(left, c.x0);
    right = Math.max(right, c.x1);
    if (Math.min(b.x1, c.x1) - Math.max(b.x0, c.x0) <= 0) continue;
    // White space under a head; over a line at the foot.
    if (atTop ? c.y0 < b.y1 - 0.5 : c.y1 > b.y0 + 0.5) continue;
    gap = Math.min(gap, atTop ? c.y0 - b.y1 : b.y0 - c.y1);
  }
  // Set in from the text's left edge, and not in the page's left part (a page of a few short
  // lines has a narrow text block).
  const setIn =
    b.x0 >= left + RUNNING_HEAD_INSET * (right - left) && (b.x0 + b.x1) / 2 >= RUNNING_HEAD_MIN_MIDDLE * page.width;
  return Number.isFinite(gap) && gap >= RUNNING_HEAD_MIN_GAP * h && setIn;
}
