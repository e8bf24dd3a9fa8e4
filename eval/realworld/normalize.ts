/**
 * olmOCR-bench's `normalize_text` (olmocr/bench/tests.py), applied to both the test strings and
 * the converter output before any comparison: `<br>` → space, bold/italic markers and `<b>`/`<i>`
 * tags dropped, whitespace runs → one space, NFC, typographic quotes/dashes/minus → ASCII, micro
 * sign → Greek mu. Kept rule for rule so pass rates mean what they mean on olmOCR-bench.
 */

const REPLACEMENTS: [string, string][] = [
  ['\u2018', "'"],
  ['\u2019', "'"],
  ['\u201a', "'"],
  ['\u201c', '"'],
  ['\u201d', '"'],
  ['\u201e', '"'],
  ['\uff3f', '_'],
  ['\u2013', '-'],
  ['\u2014', '-'],
  ['\u2011', '-'],
  ['\u2012', '-'],
  ['\u2212', '-'],
  ['\u00b5', '\u03bc'],
];

export function normalizeText(md: string): string {
  let s = md.replace(/<br\/?>/g, ' ');
  // Python's `.` does not cross a newline; JS's `.` does not either (no `s` flag): same pairs.
  s = s.replace(/\*\*(.*?)\*\*/g, '$1');
  s = s.replace(/__(.*?)__/g, '$1');
  s = s.replace(/<\/?b>/g, '');
  s = s.replace(/<\/?i>/g, '');
  s = s.replace(/(\*\*|__)(.*?)\1/g, '$2');
  s = s.replace(/(\*|_)(.*?)\1/g, '$2');
  // Python's `\s` (str patterns) is Unicode whitespace; JS's `\s` is too (plus U+FEFF, which
  // Python does not count — harmless here).
  s = s.replace(/\s+/g, ' ');
  s = s.normalize('NFC');
  for (const [from, to] of REPLACEMENTS) s = s.split(from).join(to);
  return s;
}
