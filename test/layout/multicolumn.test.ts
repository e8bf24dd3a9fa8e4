/**
 * Multi-column reading order and paragraph joins on real typeset pages (issue 15): XeLaTeX
 * twocolumn, Chromium CSS columns (justified, three columns, a full-width band) and LibreOffice
 * section columns, against their Markdown ground truth.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzePage, markFurniture, openPdf } from '../../server/pipeline/index';
import type { PageAnalysis } from '../../server/pipeline/types';
import { pageToMarkdown } from '../../server/doctags/markdown';
import { joinPageMarkdown } from '../../server/convert/pageJoin';
import { parseMarkdown } from '../../eval/metrics/markdown';
import { normalizeText } from '../../eval/metrics/normalize';
import { scoreDocument } from '../../eval/metrics/score';
import { options } from '../pipeline/analyze';

const DIR = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'multicol');

async function convert(file: string): Promise<string> {
  const doc = await openPdf(join(DIR, file));
  try {
    const pages: PageAnalysis[] = [];
    for (let p = 1; p <= doc.numPages; p++) pages.push(await analyzePage(doc, p, options()));
    for (let i = 0; i < pages.length; i++) markFurniture(pages.slice(Math.max(0, i - 2), i + 3), Math.min(i, 2));
    return joinPageMarkdown(pages.map((p) => pageToMarkdown(p.items).markdown));
  } finally {
    await doc.close();
  }
}

// Long paragraphs allowed to come out broken. Chromium's three-column page still breaks some
// paragraphs at column and page breaks where the next part starts with a capital or the page
// break falls after a list (a known gap, see ARCHITECTURE.md "Reading order"); the guard keeps
// it from getting worse.
for (const [pdf, gt, maxBroken] of [
  ['twocol-c.xelatex.pdf', 'twocol-c.md', 1],
  ['threecol.chromium.pdf', 'threecol.md', 7],
  ['twocol-b.libreoffice.pdf', 'twocol-b.md', 1],
  // A table caption set in the right column beside justified text in the left: the lines under
  // it read like a two-column table unless they are recognised as prose.
  ['twocol-c.chromium.pdf', 'twocol-c.md', 2],
] as const) {
  test(`multi-column order and paragraph joins: ${pdf}`, async () => {
    const md = await convert(pdf);
    const truth = readFileSync(join(DIR, gt), 'utf8');
    const s = scoreDocument(truth, md, 'markdown');
    assert.equal(s.readingOrder, 1, 'every ground-truth paragraph follows the one before it');
    assert.ok(s.ned < 0.01, `text distance ${s.ned.toFixed(4)} should be under 0.01`);
    const tables = (m: string) => (m.match(/^\|(\s*:?-+:?\s*\|)+\s*$/gm) ?? []).length;
    assert.equal(tables(md), tables(truth), 'as many tables as the source has: text columns are not a table');
    // Paragraphs come out whole: those that run over a column, band or page break are joined,
    // and a word hyphenated across the break is one word again.
    const out = parseMarkdown(md).map((b) => normalizeText(b.text));
    const paras = parseMarkdown(truth).filter((b) => b.kind === 'paragraph' && b.text.length > 200);
    const whole = paras.filter((p) => out.includes(normalizeText(p.text)));
    assert.ok(whole.length >= paras.length - maxBroken, `${paras.length - whole.length} of ${paras.length} long paragraphs are not whole: ${paras.filter((p) => !whole.includes(p)).map((p) => p.text.slice(0, 60)).join(' | ')}`);
  });
}
