/**
 * The failure classes of issue 23 that the real-world set probes, plus the content kinds it also
 * covers. Every test names one or more of these in its `class` field; the runner reports pass
 * rates per class.
 */
export const FAILURE_CLASSES = {
  'list-labels': '1: list labels rewritten (212., a., (i) kept as printed)',
  'tex-accents': '2: TeX accents composed into precomposed letters',
  'math-prose': '3: math-heavy prose (sentences as headings, sub/superscripts spilled, display formulas broken)',
  'small-caps': '4: small-caps headings read as body text',
  furniture: '5: running heads, page numbers, DOI/licence/download lines, margin text',
  'complex-layout': '6: sidebars, articles starting mid-page, narrower reference columns',
  'list-continuation': '7: a list item continuing on the next line split into a new paragraph',
  'heading-levels': '8: heading levels by typographic rank, title #',
  scans: '9: scanned pages (real scans, and real two-column pages rasterized at 150/200/300 dpi)',
  'detector-breaks': '10: titles and prose broken by the formula and heading detectors',
  handwriting: '11: handwriting',
  'text-layer':
    'issue 31 class 2: text the text layer lacks (outlined or pictured titles) or lies about (broken font maps: shifted codes, U+FFFD, dropped digits)',
  'reading-order': 'multi-column reading order',
  tables: 'tables',
  footnotes: 'footnotes',
  captions: 'figure and table captions',
  code: 'code listings',
  text: 'plain body text read at all',
} as const;

export type FailureClass = keyof typeof FAILURE_CLASSES;

export function isFailureClass(s: string): s is FailureClass {
  return Object.prototype.hasOwnProperty.call(FAILURE_CLASSES, s);
}
