/** List markers: bullets (including the private-use glyphs Word's Symbol font produces) and numbering. */

export interface Marker {
  /** The marker as written ("•", "1.", "a)"). */
  marker: string;
  ordered: boolean;
  /** The text after the marker. */
  rest: string;
}

const BULLETS =
  '•◦▪▫‣⁃∙·●○■□◆◇►▶➢➤✓✔✗–—*-+>\u2219\u25cf\u25e6\u2022\u2023\uf0b7\uf0a7\uf076\uf0d8\uf0fc\uf06c\uf06e\uf0a8\uf0e0\uf0f0';

const BULLET_RE = new RegExp(`^\\s*([${BULLETS.replace(/[-\]\\^*+]/g, '\\$&')}])(\\s+|$)(.*)$`, 'su');
const NUMBER_RE = /^\s*(\(?(?:\d{1,3}|[a-z]|[ivxlc]{1,6}|[A-Z])[.)])(\s+)(.*)$/su;

/** The marker at the start of a line, or undefined. `-`, `*`, `+` need a following space. */
export function parseMarker(line: string): Marker | undefined {
  const b = BULLET_RE.exec(line);
  if (b) {
    const rest = b[3] ?? '';
    // A dash followed by a number is more likely a negative value or range than a bullet.
    if ((b[1] === '-' || b[1] === '–' || b[1] === '—') && /^\d/.test(rest)) return undefined;
    return { marker: b[1], ordered: false, rest };
  }
  const n = NUMBER_RE.exec(line);
  if (n) {
    const m = n[1];
    // A marker followed by more digits is a section number ("1. 2"), a decimal or a phone number.
    if (/^\d/.test(n[3] ?? '')) return undefined;
    // Single capital letters with a dot are usually initials ("J. Smith").
    if (/^[A-Z]\.$/.test(m)) return undefined;
    return { marker: m, ordered: true, rest: n[3] ?? '' };
  }
  return undefined;
}

/** "2.1", "3.4.1", "IV." style section numbering at the start of a heading; returns its depth. */
export function headingNumberDepth(text: string): number | undefined {
  const m = /^\s*((?:\d+\.)*\d+)\.?\s+\S/.exec(text);
  if (m) return m[1].split('.').length;
  if (/^\s*[IVX]{1,5}\.\s+\S/.test(text)) return 1;
  if (/^\s*[A-H]\.\s+\S/.test(text)) return 2;
  return undefined;
}
