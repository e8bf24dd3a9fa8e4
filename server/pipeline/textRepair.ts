/**
 * Text the text layer lies about (issue 31 class 2): a line whose decoded characters a reader
 * would not accept — U+FFFD or private-use characters where the page shows letters ("�IA�" for
 * "(IA)"), a font map that turns every space into "#" ("1101#Strayer#Drive#*#San#Jose"), or
 * letters of another script mixed into Latin words ("CoŶstƌuĐtoƌ") — is read again by OCR from
 * the rendered page. Where only some characters are bad they are patched from the OCR reading
 * aligned to the line, so the letters the layer got right (accents the OCR model may miss)
 * stay; a line that is wrong throughout takes the OCR reading.
 */
import type { DocItem } from '../model/items';
import { recognize } from './ocrBridge';
import { cropRgba } from './crop';
import { laidOut, NOT_TEXT, type PageWork } from './state';

/**
 * 'patch': bad characters filled from the OCR reading; 'glued': the separator symbols the font
 * map put for spaces and hyphens ("Fax#Line:#(408)#366=0743") filled from it, a space where
 * the OCR model saw none (it drops spaces); 'replace': the OCR reading throughout.
 */
export type Repair = 'patch' | 'glued' | 'replace';

/**
 * U+FFFD, C0 and C1 controls and the Private Use Area: characters no page shows. pdf.js gives a
 * glyph with no Unicode mapping its character code, often a control ("\x81" for an old-style
 * "1": pdf/lostGlyphs.ts).
 */
export function isBadChar(ch: string): boolean {
  const c = ch.codePointAt(0)!;
  return c === 0xfffd || (c < 0x20 && !/\s/.test(ch)) || (c >= 0x7f && c <= 0x9f) || (c >= 0xe000 && c <= 0xf8ff);
}

/** At least this many words glued by one separator character make a line wrong throughout. */
const GLUED_MIN = 3;
/** A line with bad characters is patched only when it has this many words of three letters or more. */
const PROSE_MIN_WORDS = 3;
/** At least this many Latin words with letters of Latin Extended-B or IPA inside. */
const MIXED_MIN = 2;

export function implausibleText(text: string): Repair | undefined {
  if (!text) return undefined;
  // Words glued by "#" or "=" with hardly a space: the font map sends the space to a symbol.
  const glued = (text.match(/[\p{L}\p{N}),.:*][#=][\p{L}\p{N}(*]/gu) ?? []).length;
  const spaces = (text.match(/ /g) ?? []).length;
  if (glued >= GLUED_MIN && glued > spaces) return 'glued';
  // Basic Latin letters and Latin Extended-B / IPA letters inside one word ("ƌeƋuiƌes").
  const mixed = text
    .split(/\s+/)
    .filter(
      (w) => /[A-Za-z]/.test(w) && /[\u0180-\u02af]/.test(w) && /[\u0180-\u02af][a-z]|[a-z][\u0180-\u02af]/.test(w),
    );
  if (mixed.length >= MIXED_MIN) return 'replace';
  // Bad characters inside prose; in a formula or a matrix set in math fonts they are most often
  // pieces of large delimiters or negation slashes, which no OCR character stands for.
  if ([...text].some(isBadChar) && (text.match(/\p{L}{3,}/gu) ?? []).length >= PROSE_MIN_WORDS) return 'patch';
  return undefined;
}

/**
 * The layer's text with each bad character (`isBad`, isBadChar unless told) replaced by the OCR
 * character aligned to it (Levenshtein alignment in which a bad character matches any printed
 * character; one aligned to nothing is dropped). The OCR model's spacing and accents do not
 * matter: only the bad characters take anything from it.
 */
export function patchFromOcr(layer: string, ocr: string, isBad: (ch: string) => boolean = isBadChar): string {
  // A bad character stands for any one printed character, at a little cost: where the OCR
  // reading has no character for it ("cases \x84 They" read as "cases They"), the alignment
  // drops it rather than hand it the "s" the layer already has at the end of "cases".
  return align(
    layer,
    ocr,
    isBad,
    (got) => !/\s/.test(got),
    (_bad, got) => (got !== undefined && plausibleFill(got) ? got : undefined),
    2,
    1,
  );
}

/** The glue symbols of a 'glued' line (see implausibleText). */
const GLUE = /[#=]/;

/**
 * A 'glued' line with each glue symbol replaced by what the OCR reading has in its place: the
 * space or punctuation it saw there, else a space (the OCR model drops spaces between words,
 * and a letter aligned there is a misalignment, not what the symbol stands for).
 */
export function patchGlued(layer: string, ocr: string): string {
  const fill = (_bad: string, got: string | undefined) =>
    got !== undefined && /[^\p{L}\p{N}\s]/u.test(got) ? got : ' ';
  // A glue symbol is cheaper to align with nothing than a printed character: "Line:#(" against
  // "Line:(" drops the "#", not the colon.
  return align(
    layer,
    ocr,
    (ch) => GLUE.test(ch),
    () => true,
    fill,
    1,
  )
    .replace(/ {2,}/g, ' ')
    .trim();
}

/** One step of an alignment: a layer character against an OCR one, or either alone. */
export type Step = { a: string; b: string } | { a: string; b?: undefined } | { a?: undefined; b: string };

/**
 * Levenshtein alignment of the layer's text to the OCR reading, in which a bad character
 * (`isBad`) matches the OCR character where `matches` says so at no cost, and costs
 * `badDrop` (of 2 for any other edit) to align with nothing.
 */
export function alignSteps(
  layer: string,
  ocr: string,
  isBad: (ch: string) => boolean,
  matches: (got: string) => boolean,
  badDrop = 2,
  badMatch = 0,
): Step[] {
  const same = (x: string, y: string) => x === y || (/\s/.test(x) && /\s/.test(y)) || (isBad(x) && matches(y));
  // What aligning two characters costs: nothing for equal ones, `badMatch` for a bad one.
  const cost = (x: string, y: string) => (x === y || (/\s/.test(x) && /\s/.test(y)) ? 0 : same(x, y) ? badMatch : 2);
  const a = [...layer];
  const b = [...ocr];
  const n = a.length;
  const m = b.length;
  const drop = (x: string) => (isBad(x) ? badDrop : 2);
  const d: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = 1; i <= n; i++) d[i][0] = d[i - 1][0] + drop(a[i - 1]);
  for (let j = 0; j <= m; j++) d[0][j] = 2 * j;
  for (let i = 1; i <= n; i++)
    for (let j = 1; j <= m; j++) {
      d[i][j] = Math.min(d[i - 1][j] + drop(a[i - 1]), d[i][j - 1] + 2, d[i - 1][j - 1] + cost(a[i - 1], b[j - 1]));
    }
  const out: Step[] = [];
  let i = n;
  let j = m;
  while (i > 0 || j > 0) {
    if (i > 0 && j > 0 && d[i][j] === d[i - 1][j - 1] + cost(a[i - 1], b[j - 1])) {
      out.push({ a: a[i - 1], b: b[j - 1] });
      i--;
      j--;
    } else if (i > 0 && d[i][j] === d[i - 1][j] + drop(a[i - 1])) {
      out.push({ a: a[--i] });
    } else out.push({ b: b[--j] });
  }
  return out.reverse();
}

/**
 * The layer's characters kept, each bad one (`isBad`) replaced by `fill(bad, aligned OCR
 * character or undefined)`, or dropped when that is undefined.
 */
function align(
  layer: string,
  ocr: string,
  isBad: (ch: string) => boolean,
  matches: (got: string) => boolean,
  fill: (bad: string, got: string | undefined) => string | undefined,
  badDrop = 2,
  badMatch = 0,
): string {
  const out: string[] = [];
  for (const st of alignSteps(layer, ocr, isBad, matches, badDrop, badMatch)) {
    if (st.a === undefined) continue;
    if (!isBad(st.a)) out.push(st.a);
    else {
      const f = fill(st.a, st.b);
      if (f !== undefined) out.push(f);
      else if (st.b !== undefined) out.push(st.a);
    }
  }
  return out.join('');
}

/**
 * A character the OCR model may put in a bad character's place: not one of its dictionary's CJK
 * characters (it reads "≪" as "《"), which a Latin line's broken glyph hardly ever is.
 */
function plausibleFill(ch: string): boolean {
  return !/[\u2e80-\u9fff\uac00-\ud7af\uff00-\uffef]/u.test(ch);
}

/** At most this many items of a page are read again by OCR (each is one OCR call on its crop). */
const REPAIR_MAX_ITEMS = 12;

/**
 * Page step: items whose text-layer characters are implausible read again by OCR from the page
 * rendered at OCR_SCALE, each from its own crop; the page's warnings say which.
 */
export async function repairImplausibleLines(w: PageWork): Promise<void> {
  if (w.wantOcr || !w.ocrOk) return;
  const items = laidOut(w).items;
  const { opts, signal } = w;
  const symbols = w.raw.lostSymbols;
  // A lost symbol glyph's placeholder (pdf/lostGlyphs.ts) is left as it was: no OCR letter fills it.
  const bad = (ch: string) => isBadChar(ch) && !symbols.has(ch);
  const letters = (text: string) => (symbols.size ? [...text].filter((ch) => !symbols.has(ch)).join('') : text);
  const suspects = items
    // Text with inline math is left alone: its formulas are set in math fonts, whose private-use
    // glyphs are symbols the OCR model does not know, and its parts would have to be rebuilt.
    .map((it) => ({
      it,
      how: it.bbox && !NOT_TEXT.has(it.cls) && !it.parts?.length ? implausibleText(letters(it.text)) : undefined,
    }))
    .filter((x): x is { it: DocItem; how: Repair } => x.how !== undefined)
    .slice(0, REPAIR_MAX_ITEMS);
  if (!suspects.length) return;
  const scan = await w.scan();
  const repaired: string[] = [];
  for (const { it, how } of suspects) {
    signal?.throwIfAborted();
    const b = it.bbox!;
    const pad = 2;
    const crop = cropRgba(scan, { x0: b.x0 - pad, y0: b.y0 - pad, x1: b.x1 + pad, y1: b.y1 + pad });
    const ocr = await recognize(crop.image, opts.providers, signal);
    // NFKC: the recognizer's dictionary writes full-width punctuation ("（IA）", "：").
    const read = ocr.lines
      .map((l) => l.text.normalize('NFKC').trim())
      .filter(Boolean)
      .join(' ');
    if (!read) continue;
    const text =
      how === 'replace' ? read : how === 'glued' ? patchGlued(it.text, read) : patchFromOcr(it.text, read, bad);
    if (text === it.text) continue;
    it.text = text;
    delete it.parts;
    repaired.push(`"${text.length > 60 ? text.slice(0, 57) + '…' : text}"`);
  }
  if (repaired.length)
    w.warnings.push(
      `text read by OCR where the text layer's characters are not plausible (a broken font map): ${repaired.join(', ')}`,
    );
}
