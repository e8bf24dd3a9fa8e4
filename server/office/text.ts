/** Small text helpers the structured readers share. */

/** One line of running text: whitespace runs (tabs, line breaks) become one space, ends trimmed. */
export function tidy(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** The picture formats Folio saves as they are (browsers and Markdown viewers show them); others stay placeholders. */
export function pictureExt(path: string): 'png' | 'jpeg' | 'gif' | undefined {
  const m = /\.([a-z0-9]+)$/i.exec(path);
  const e = m?.[1].toLowerCase();
  if (e === 'png') return 'png';
  if (e === 'jpg' || e === 'jpeg') return 'jpeg';
  if (e === 'gif') return 'gif';
  return undefined;
}
