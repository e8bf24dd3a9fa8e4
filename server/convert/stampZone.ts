/**
 * Stamp blocks set inside the body's reach (issue 31, furniture on a page alone): the
 * authorarchive package's "This is the author's version of the work. It is posted at … for your
 * personal use. Not for redistribution. The definitive version was published in …" and
 * llncsconf's "… The final publication is available at Springer via …" sit at the foot of the
 * text block, a line's spacing under its last paragraph, so the band stage never made them
 * furniture candidates and they came out as paragraphs and code blocks. A paragraph in the outer
 * part of the page that says what only a publisher's or archive's stamp says is one; the items
 * chained to it on the page's edge side (the link, the licence logo, "BibTeX, Word, EndNote,
 * RIS" beside it) are the stamp's too. Nothing on the body's side of the stamp's first line is
 * taken: the body's last paragraph right above it stays. A journal's identifier line at the top
 * (an ISSN, a DOI) is a seed too: the journal's name and volume lines over it go with it.
 */
import type { PageAnalysis } from '../model/analysis';
import type { DocItem } from '../model/items';

/** The words of an archive's or publisher's stamp; no body sentence reads like them. */
const STAMP_WORDS_RE =
  /\b(author['’]?s? (accepted )?(version of the work|manuscript)|for (your )?personal use\b.*\bnot for redistribution|not for redistribution|the definitive version (was|is|will be) published|the final publication is available (at|from|via)|not the version of record|downloaded from \S+ (on|at) |download date\s*:)/i;
/**
 * A journal's identifier: an ISSN, or a DOI link or number ("ISSN
 * 1535-6078", "https://doi.org/10.4007/annals.2008.160.1.12", "DOI: 10.1214/…"). A journal
 * prints it by its running title (aomart, ejpecp, Sprouts); a reference that cites a DOI has an
 * author and a title before it.
 */
const IDENTIFIER_RE =
  /(issn:?\s*\d{4}-\d{3}[\dx]|(doi:?\s*)?(https?:\/\/(dx\.)?doi\.org\/|doi:?\s*)10\.\d{4,9}\/\S+)/gi;

/**
 * Nothing but identifiers: one, or a journal's DOI and ISSN lines that its layout read as one
 * block ("https://doi.org/10.1214/YY-TN" over "ISSN: 1083-589X", ejpecp).
 */
export function isIdentifierLine(text: string): boolean {
  const t = text.trim();
  return t.replace(IDENTIFIER_RE, '') !== t && t.replace(IDENTIFIER_RE, '').trim() === '';
}

/** A stamp's middle lies in this outer share of the page, at the top or the foot… */
const STAMP_ZONE = 0.15;
/** …an identifier's, at the top, in this share (ejpecp sets its header block at 16–20 %). */
const IDENTIFIER_ZONE = 0.2;
/** A stamp is at most this long (authorarchive's block runs to 330 characters). */
const STAMP_MAX_CHARS = 400;
/** Items of one stamp stand at most this many line heights apart. */
const STAMP_GAP_LINES = 1;
const TAKEN = new Set(['text', 'code', 'footnote', 'list_item', 'formula']);

function furniture(it: DocItem): boolean {
  return it.cls === 'page_header' || it.cls === 'page_footer';
}

/** Marks stamp blocks in the outer parts of a page converted alone as page headers or footers. */
export function markStampZones(page: PageAnalysis): void {
  const H = page.height;
  const mid = (it: DocItem) => (it.bbox!.y0 + it.bbox!.y1) / 2;
  for (const seed of page.items) {
    if (!seed.bbox) continue;
    const identifier = isIdentifierLine(seed.text);
    // An identifier already made a page header by its form still takes the journal lines with it.
    if ((furniture(seed) && !identifier) || !(TAKEN.has(seed.cls) || (identifier && furniture(seed)))) continue;
    if (seed.text.length > STAMP_MAX_CHARS || !(identifier || STAMP_WORDS_RE.test(seed.text))) continue;
    const foot = mid(seed) >= H * (1 - STAMP_ZONE);
    if (!foot && mid(seed) > H * (identifier ? IDENTIFIER_ZONE : STAMP_ZONE)) continue;
    const block = [seed];
    const s = seed.bbox;
    // On the edge side of the stamp's first line (its last, for a stamp at the top).
    const edgeSide = (it: DocItem) => {
      const b = it.bbox!;
      const h = Math.min(b.y1 - b.y0, s.y1 - s.y0);
      return foot ? b.y0 >= s.y0 - h / 2 : b.y1 <= s.y1 + h / 2;
    };
    // The journal's name beside or over its identifier may have been set as a heading (Sprouts'
    // "Working Papers on Information Systems" beside "ISSN 1535-6078"); only on the edge side.
    const takes = (it: DocItem) => TAKEN.has(it.cls) || (identifier && it.cls === 'section_header');
    const cands = page.items.filter((it) => it !== seed && it.bbox && takes(it) && !furniture(it) && edgeSide(it));
    for (let grown = true; grown;) {
      grown = false;
      for (const it of cands) {
        if (block.includes(it)) continue;
        const a = it.bbox!;
        const near = block.some((o) => {
          const b = o.bbox!;
          const gap = Math.max(b.y0 - a.y1, a.y0 - b.y1);
          const h = Math.min(a.y1 - a.y0, b.y1 - b.y0);
          const across = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0) > 0 || Math.abs(a.y0 - b.y0) < h / 2;
          return gap <= STAMP_GAP_LINES * h && across;
        });
        if (!near) continue;
        block.push(it);
        grown = true;
      }
    }
    for (const it of block) it.cls = foot ? 'page_footer' : 'page_header';
  }
}
