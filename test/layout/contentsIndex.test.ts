/**
 * Tables of contents (issue 31 class 7; server/layout/toc/detect.ts): each entry one row of a
 * document index (title, page), as docling writes its `document_index`. Real pages cut alone as
 * the real-world set does: bzip2's manual (leader dots, which came out as display formulas with
 * the page numbers as a paragraph of their own), chletter's documentation (each page number a
 * paragraph of its own) and texlinks' (one entry lost, the rest a broken table). Look-alikes that
 * stay: a two-column table of names and rising numbers without dots or section numbers, and
 * numbers that do not rise down the page.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileMarkdown, analyzeFile } from './convertFile';
import { withPageFile } from './pageOfTest';
import { findContents } from '../../server/layout/toc/detect';
import type { TextSpan } from '../../server/model/content';

/** The page's Markdown and its items' classes, the page cut alone as the real-world set cuts it. */
const pageMarkdown = (pdf: string, page: number): Promise<{ md: string; classes: string[] }> =>
  withPageFile(pdf, page, async (file) => ({
    md: await fileMarkdown(file),
    classes: (await analyzeFile(file)).flatMap((p) => p.items.map((i) => i.cls)),
  }));

test('bzip2’s contents with leader dots: one index, an entry a row, no formulas', async () => {
  const { md, classes } = await pageMarkdown('debian/bzip2-manual', 5);
  assert.ok(classes.includes('document_index'));
  assert.ok(!classes.includes('formula'), 'leader dots are no formula');
  for (const row of [
    '| 2.1. NAME | 2 |',
    '| 2.4. OPTIONS | 4 |',
    '| 2.6. RECOVERING DATA FROM DAMAGED FILES | 6 |',
    '| 2.9. AUTHOR | 7 |',
  ])
    assert.ok(md.includes(row), `${row} in:\n${md.slice(0, 1500)}`);
  assert.ok(md.indexOf('### Table of Contents') < md.indexOf('| 2.1. NAME | 2 |'));
  assert.ok(md.indexOf('| 2.9. AUTHOR | 7 |') < md.indexOf('This chapter contains a copy of the bzip2 man page'));
});

test('chletter’s and texlinks’ contents: every entry with its page number on its row, none lost', async () => {
  const ch = (await pageMarkdown('debian/chletter-doc', 1)).md;
  for (const row of [
    '| 1 Introduction | 3 |',
    '| 2.2 A customized letter | 5 |',
    '| 4.3.1 Cover page | 11 |',
    '| 4.6 Paragraphing | 14 |',
  ])
    assert.ok(ch.includes(row), `${row} in:\n${ch.slice(0, 2000)}`);
  assert.ok(!/^3$/m.test(ch), 'no page number as a paragraph of its own');
  const tl = (await pageMarkdown('debian/texlinks-doc', 1)).md;
  for (const row of [
    '| 1 Related Packages | 3 |',
    '| 2 Usage | 3 |',
    '| 3 Preliminaries | 3 |',
    '| 3.1 Package File Header (Legalese) | 3 |',
  ])
    assert.ok(tl.includes(row), `${row} in:\n${tl.slice(0, 2500)}`);
});

/** A row of spans: a title and a number flush right at x 400. */
function row(y: number, title: string, num: string, dots = false): TextSpan[] {
  const s = (text: string, x0: number, x1: number): TextSpan => ({
    text,
    bbox: { x0, y0: y, x1, y1: y + 10 },
    fontSize: 10,
    fontName: 'F1',
    monospace: false,
  });
  return dots
    ? [s(`${title} . . . . . . . .`, 72, 380), s(num, 392, 400)]
    : [s(title, 72, 200), s(num, 400 - 6 * num.length, 400)];
}

test('a two-column table of names and rising counts, without dots or section numbers, is no index', () => {
  const spans = ['Apples', 'Pears', 'Plums', 'Figs', 'Quinces'].flatMap((t, i) =>
    row(100 + 14 * i, t, String(3 + 2 * i)),
  );
  assert.deepEqual(findContents(spans), []);
});

test('entries whose numbers fall down the page are no index; the same entries rising are one', () => {
  const falling = ['1 Intro', '2 Method', '3 Results', '4 Discussion', '5 End'].flatMap((t, i) =>
    row(100 + 14 * i, t, String(40 - 7 * i), true),
  );
  assert.deepEqual(findContents(falling), []);
  const rising = ['1 Intro', '2 Method', '3 Results', '4 Discussion', '5 End'].flatMap((t, i) =>
    row(100 + 14 * i, t, String(1 + 7 * i), true),
  );
  const [block] = findContents(rising);
  assert.deepEqual(
    block!.rows.map((r) => r.map((c) => c.text)),
    [
      ['1 Intro', '1'],
      ['2 Method', '8'],
      ['3 Results', '15'],
      ['4 Discussion', '22'],
      ['5 End', '29'],
    ],
  );
});
