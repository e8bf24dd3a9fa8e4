/**
 * A list item's own label as the document writes it ("212.", "a.", "(iii)", "(e)", "4)").
 * DocTags has no attribute for it, so the label travels as the start of the item's text, as a
 * VLM writes what it reads on the page (`<list_item>212. Prove that…</list_item>`); the parser
 * takes it off again for ordered lists. Bullets are never stored: they carry no information.
 */

/**
 * Numbers up to 4 digits, one letter, short roman numerals; with `.` or `)`, or in parentheses.
 * Also a multi-level number as Word prints an outline list's label, up to six levels: closed by
 * `.` or `)` ("1.1.", "1.2)"), or of three levels or more without it ("2.3.1"). Two levels with
 * no closing mark ("1.1") are not taken: an item's text starting with a decimal ("3.14 …") reads
 * the same, and would lose its words to the label.
 */
const LABEL_RE =
  /^(\((?:\d{1,4}|[a-zA-Z]|[ivxlcIVXLC]{1,6})\)|\d{1,4}(?:\.\d{1,4}){1,5}[.)]|\d{1,4}(?:\.\d{1,4}){2,5}|(?:\d{1,4}|[a-zA-Z]|[ivxlcIVXLC]{1,6})[.)])(?:\s+|$)/;

/** True when `s` is a whole label this module can carry. */
export function isListLabel(s: string): boolean {
  const m = LABEL_RE.exec(s);
  return m !== null && m[0].trim() === s;
}

/** The label at the start of an ordered item's text and the text after it, or undefined. */
export function splitListLabel(text: string): { label: string; rest: string } | undefined {
  const m = LABEL_RE.exec(text);
  if (!m) return undefined;
  return { label: m[1]!, rest: text.slice(m[0].length) };
}

/** A number label ("212." / "7)"): Markdown writes it as the ordered list marker itself. */
export function numberOfLabel(label: string): { n: number; delim: '.' | ')' } | undefined {
  const m = /^(\d{1,4})([.)])$/.exec(label);
  return m ? { n: Number(m[1]), delim: m[2] as '.' | ')' } : undefined;
}
