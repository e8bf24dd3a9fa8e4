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
    if (c === 0x2026 || c === 0x2122 || (c >= 0x00b2 && c <= 0x00b3) || c === 0x00b9 || (c >= 0x00bc && c <= 0x00be)) out += ch;
    else if (c === 0x00ad) continue; // soft hyphen: a hint for line breaking only
    else if ((c >= 0xfb00 && c <= 0xfb06) || c === 0x00a0 || (c >= 0x2000 && c <= 0x200a) || c === 0x202f || c === 0x205f || c === 0x3000 || (c >= 0xff01 && c <= 0xff5e))
      out += ch.normalize('NFKC');
    else out += ch;
  }
  // Zero-width characters and stray control characters carry nothing readable.
  return out.replace(/[\u200b-\u200d\u2060\ufeff\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');
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
  for (const t of texts) for (const w of t.split(/\s+/)) {
    const s = stripPunct(w);
    if (s.length > 1) v.add(s);
  }
  return v;
}
