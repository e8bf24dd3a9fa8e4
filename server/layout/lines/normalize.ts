/**
 * Text normalization shared by layout: Unicode compatibility forms (ligatures, odd spaces),
 * soft hyphens, and joining the lines of a block (unwrapping, dehyphenation).
 */

/** NFKC for ligatures (ﬁ → fi) and compatibility spaces, minus its lossy parts we want to keep. */
export function normalizeSpanText(s: string): string {
  // NFKC also turns "…" into "..." and "™" into "TM"; keep those as written.
  let out = '';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c === 0x2026 || c === 0x2122 || (c >= 0x00b2 && c <= 0x00b3) || c === 0x00b9 || (c >= 0x00bc && c <= 0x00be))
      out += ch;
    else if (c === 0x00ad)
      continue; // soft hyphen: a hint for line breaking only
    else if (
      (c >= 0xfb00 && c <= 0xfb06) ||
      c === 0x00a0 ||
      (c >= 0x2000 && c <= 0x200a) ||
      c === 0x202f ||
      c === 0x205f ||
      c === 0x3000 ||
      (c >= 0xff01 && c <= 0xff5e)
    )
      out += ch.normalize('NFKC');
    else out += ch;
  }
  // Zero-width characters and stray control characters carry nothing readable.
  return out.replace(/[\u200b-\u200d\u2060\ufeff\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');
}

/**
 * TeX (OT1/T1 with Computer Modern, Times) draws an accented letter as the letter plus a spacing
 * accent glyph moved over it: the text layer reads "Poincar´e", "M¨undler", "c¸". pdftotext
 * composes them by position; these spacing accents before a letter (cedilla and ogonek after
 * it) become that letter's precomposed character (NFC): "Poincaré", "Mündler", "ç".
 */
const ACCENT_BEFORE: Record<string, string> = {
  '\u00b4': '\u0301', // ´ acute
  '\u00a8': '\u0308', // ¨ diaeresis
  '\u02c6': '\u0302', // ˆ circumflex
  '\u02dc': '\u0303', // ˜ tilde
  '\u02c7': '\u030c', // ˇ caron
  '\u02d8': '\u0306', // ˘ breve
  '\u00af': '\u0304', // ¯ macron
  '\u02d9': '\u0307', // ˙ dot above
  '\u02da': '\u030a', // ˚ ring
  '\u02dd': '\u030b', // ˝ double acute
};
const ACCENT_AFTER: Record<string, string> = {
  '\u00b8': '\u0327', // ¸ cedilla
  '\u02db': '\u0328', // ˛ ogonek
};
const ACCENT_BEFORE_RE = /([\u00b4\u00a8\u02c6\u02dc\u02c7\u02d8\u00af\u02d9\u02da\u02dd])(\p{L})/gu;
// Only after a letter that takes the mark (c¸ → ç, e˛ → ę): a cedilla after other text stays.
const ACCENT_AFTER_RE = /([cCsStTgGkKlLnNrReEaAiIuUoO])([\u00b8\u02db])/gu;

/**
 * The grave accent is drawn with the ASCII backtick (OT1 maps it there): "Th´eor`eme", "`a".
 * Composed only on a vowel in a line that is not code (`grave`), never between backtick pairs.
 */
const GRAVE_RE = /(^|[\p{L}\s(\-‐’'«])`([aeiouAEIOU])/gu;
/**
 * `code` written inline: no space just inside either backtick, and neither inside a word
 * ("D'apr`es ce th´eor`eme" and "de z `a z (d'apr`es" are graves, not code spans).
 */
const CODE_SPAN_RE = /(^|[^\p{L}])`[^`\s]([^`]*[^`\s])?`(?!\p{L})/u;

export function composeAccents(text: string, grave = false): string {
  if (grave && text.includes('`') && !CODE_SPAN_RE.test(text))
    text = text.replace(GRAVE_RE, (_, b: string, l: string) => b + (l + '\u0300').normalize('NFC'));
  if (!/[\u00b4\u00a8\u02c6\u02dc\u02c7\u02d8\u00af\u02d9\u02da\u02dd\u00b8\u02db]/u.test(text)) return text;
  // "ı" (dotless i) under an accent is TeX's \'{\i}: the accent takes the place of the dot.
  // Only where the pair is a letter of some language (one precomposed character): "Don´t" with
  // an acute typed for an apostrophe has no "t́" and stays as written.
  const one = (l: string, mark: string, orig: string) => {
    const c = (l + mark).normalize('NFC');
    return [...c].length === 1 ? c : orig;
  };
  return text
    .replace(ACCENT_BEFORE_RE, (m, a: string, l: string) => one(l === 'ı' ? 'i' : l, ACCENT_BEFORE[a]!, m))
    .replace(ACCENT_AFTER_RE, (m, l: string, a: string) => one(l, ACCENT_AFTER[a]!, m));
}

const HYPHENS = /[-\u2010\u2011]$/;

/**
 * Joins the lines of one paragraph. A line-end hyphen is removed when the next line starts with
 * a lowercase letter and the joined word is known on the page (or the hyphenated form is not);
 * compounds such as "state-of-" + "the-art" and capitalized continuations keep it.
 */
export function joinLines(lines: string[], vocabulary?: Set<string>): string {
  let out = '';
  for (const raw of lines) {
    const line = raw.replace(/\s+/g, ' ').trim();
    if (line.length === 0) continue;
    if (out.length === 0) {
      out = line;
      continue;
    }
    if (HYPHENS.test(out) && /\p{L}[-\u2010\u2011]$/u.test(out)) {
      const head = /(\S+)[-\u2010\u2011]$/u.exec(out)?.[1] ?? '';
      const tail = /^(\S+)/u.exec(line)?.[1] ?? '';
      if (shouldDehyphenate(head, tail, vocabulary)) {
        out = out.slice(0, -1) + line;
        continue;
      }
      out += line;
      continue;
    }
    if (/\u00ad$/.test(out)) {
      out = out.slice(0, -1) + line;
      continue;
    }
    out += ' ' + line;
  }
  return out;
}

function stripPunct(w: string): string {
  return w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}-]+$/gu, '').toLowerCase();
}

export function shouldDehyphenate(head: string, tail: string, vocabulary?: Set<string>): boolean {
  if (!/^\p{Ll}/u.test(tail)) return false; // "Covid-" + "19", "Anglo-" + "Saxon": a real hyphen
  if (/[-\u2010\u2011]/.test(head)) return false; // already a compound: "state-of-" + "the-art"
  const h = stripPunct(head);
  const t = stripPunct(tail);
  if (vocabulary) {
    if (vocabulary.has(`${h}-${t}`)) return false;
    if (vocabulary.has(h + t)) return true;
    // Both halves are words of their own on the page: a compound ("grouped-query"), not a
    // syllable break ("to-kens").
    if (h.length >= 3 && t.length >= 3 && vocabulary.has(h) && vocabulary.has(t)) return false;
  }
  return h.length >= 1;
}

/** Words of a page's text, lowercased, for the dehyphenation check. */
export function vocabularyOf(texts: Iterable<string>): Set<string> {
  const v = new Set<string>();
  for (const t of texts)
    for (const w of t.split(/\s+/)) {
      const s = stripPunct(w);
      if (s.length > 1) v.add(s);
    }
  return v;
}
