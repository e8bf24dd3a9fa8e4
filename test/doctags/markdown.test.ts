/**
 * The DocTags → Markdown converter on hand-made items: each Markdown construct, escaping (PDF
 * text must never become HTML or structure), furniture, ranges, lists over page breaks. The
 * Markdown is also rendered with `marked` (a CommonMark/GFM renderer, installed with vsce) to
 * check what a viewer would really show.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { marked } from 'marked';
import type { DocItem } from '../../server/model/items';
import { documentToMarkdown, pageToMarkdown, renderRegionMarkdown } from '../../server/doctags/markdown';
import { parseDocTags } from '../../server/doctags/parse';

const html = (md: string) => marked.parse(md, { async: false, gfm: true }) as string;
const text = (t: string, cls: DocItem['cls'] = 'text'): DocItem => ({ cls, text: t });
const li = (t: string, level = 0, ordered = false): DocItem => ({ cls: 'list_item', text: t, level, ordered });

test('headings: title is #, section level N is N+1 #', () => {
  const { markdown } = pageToMarkdown([
    text('Doc', 'title'),
    { cls: 'section_header', text: 'Intro', level: 1 },
    { cls: 'section_header', text: 'Sub', level: 2 },
  ]);
  assert.equal(markdown, '# Doc\n\n## Intro\n\n### Sub');
});

test('nested lists: indentation and numbering render as nested lists', () => {
  const items = [
    li('a'),
    li('b'),
    li('b1', 1, true),
    li('b2', 1, true),
    li('c'),
    text('after'),
    li('x', 0, true),
    li('y', 0, true),
  ];
  const { markdown } = pageToMarkdown(items);
  assert.equal(markdown, '- a\n- b\n    1. b1\n    2. b2\n- c\n\nafter\n\n1. x\n2. y');
  const h = html(markdown);
  assert.match(h, /<li>b\s*<ol>\s*<li>b1<\/li>\s*<li>b2<\/li>\s*<\/ol>\s*<\/li>/);
  assert.equal((h.match(/<ul>/g) ?? []).length, 1);
});

test('a list item two levels deeper than its predecessor is not turned into a code block', () => {
  const { markdown } = pageToMarkdown([li('top'), li('deep', 3)]);
  assert.ok(!html(markdown).includes('<code>'), markdown);
  assert.match(html(markdown), /<li>top\s*<ul>\s*<li>deep<\/li>/);
});

test('ordered list continues its numbering across a page break', () => {
  const md = documentToMarkdown([[li('one', 0, true), li('two', 0, true)], [li('three', 0, true)]]);
  assert.equal(md, '1. one\n2. two\n\n3. three');
  assert.equal((html(md).match(/<ol>/g) ?? []).length, 1);
});

test('GFM table without spans; `|` and HTML in cells are escaped', () => {
  const t: DocItem = {
    cls: 'table',
    text: '',
    table: [
      [
        { tag: 'ched', text: 'Name' },
        { tag: 'ched', text: 'Value' },
      ],
      [
        { tag: 'fcel', text: 'a|b' },
        { tag: 'fcel', text: '<b>x</b>' },
      ],
      [
        { tag: 'fcel', text: 'c' },
        { tag: 'ecel', text: '' },
      ],
    ],
    caption: text('Table 1. Values', 'caption'),
  };
  const { markdown } = pageToMarkdown([t]);
  assert.equal(markdown, 'Table 1. Values\n\n| Name | Value |\n| - | - |\n| a\\|b | &lt;b>x&lt;/b> |\n| c |  |');
  const h = html(markdown);
  assert.match(h, /<td>a\|b<\/td>/);
  assert.ok(!h.includes('<b>'));
});

test('table with merged cells becomes an HTML table with colspan and rowspan', () => {
  const t: DocItem = {
    cls: 'table',
    text: '',
    table: [
      [
        { tag: 'ched', text: 'Model' },
        { tag: 'ched', text: 'Scores' },
        { tag: 'lcel', text: '' },
      ],
      [
        { tag: 'ucel', text: '' },
        { tag: 'ched', text: 'P' },
        { tag: 'ched', text: 'R' },
      ],
      [
        { tag: 'fcel', text: 'A<script>' },
        { tag: 'fcel', text: '1' },
        { tag: 'fcel', text: '2' },
      ],
    ],
  };
  const md = renderRegionMarkdown(t);
  assert.equal(
    md,
    '<table>\n<tr><th rowspan="2">Model</th><th colspan="2">Scores</th></tr>\n<tr><th>P</th><th>R</th></tr>\n<tr><td>A&lt;script&gt;</td><td>1</td><td>2</td></tr>\n</table>',
  );
});

test('code is fenced with its language and a fence longer than any backtick run inside', () => {
  const md = renderRegionMarkdown({
    cls: 'code',
    text: 'x = "```"\nprint(x)',
    language: 'Python',
    caption: text('Listing 1', 'caption'),
  });
  assert.equal(md, '````Python\nx = "```"\nprint(x)\n````\n\nListing 1');
  assert.match(html(md), /<code class="language-Python">x = &quot;```&quot;\nprint\(x\)\n<\/code>/);
});

test('formulas, pictures and empty ones as docling writes them', () => {
  assert.equal(renderRegionMarkdown({ cls: 'formula', text: 'E = mc^2' }), '$$E = mc^2$$');
  assert.equal(renderRegionMarkdown({ cls: 'formula', text: '' }), '<!-- formula-not-decoded -->');
  assert.equal(renderRegionMarkdown({ cls: 'picture', text: '' }), '<!-- image -->');
  assert.equal(
    renderRegionMarkdown({
      cls: 'picture',
      text: '',
      imagePath: 'assets/fig 1.png',
      caption: text('Figure 1: [a] cat', 'caption'),
    }),
    'Figure 1: [a] cat\n\n![Figure 1: \\[a\\] cat](assets/fig%201.png)',
  );
  assert.match(html('![x](assets/fig%201.png)'), /src="assets\/fig%201.png"/);
});

test('picture links percent-encode each path segment, so #, %, spaces and brackets reach the file', () => {
  const md = renderRegionMarkdown({ cls: 'picture', text: '', imagePath: 'a #1 (x)%.assets/p [1]&.png' });
  assert.equal(md, '![](a%20%231%20%28x%29%25.assets/p%20%5B1%5D%26.png)');
  // What a Markdown renderer gets back is the original relative path, segment by segment.
  const src = /src="([^"]+)"/.exec(html(md))![1];
  assert.equal(decodeURIComponent(src.replace(/&amp;/g, '&')), 'a #1 (x)%.assets/p [1]&.png');
});

test('PDF text never becomes HTML, and line starts never become structure', () => {
  const evil = [
    '<img src=x onerror=alert(1)>',
    '<script>alert(1)</script>',
    '# not a heading',
    '1. not a list',
    '- not a bullet',
    '> not a quote',
    '    not code',
    '```',
    '[link](javascript:alert(1))',
    '*not emphasis*',
    '_not emphasis_',
    '&amp; stays literally &amp;',
    '====',
  ];
  for (const s of evil) {
    const { markdown } = pageToMarkdown([text(s)]);
    const h = html(markdown).trim();
    assert.ok(h.startsWith('<p>') && h.endsWith('</p>'), `${s} → ${markdown} → ${h}`);
    assert.ok(!/<(img|script|a|em|code|h1|ol|ul|blockquote)\b/.test(h), `${s} → ${h}`);
    // What the reader sees is the PDF's text.
    const shown = h
      .slice(3, -4)
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, '&');
    assert.equal(shown, s.trim(), `${s} → ${markdown}`);
  }
  // Intraword underscores and single dollars are left alone (no needless escapes).
  assert.equal(pageToMarkdown([text('snake_case costs $5')]).markdown, 'snake_case costs $5');
});

test('page headers and footers are left out unless keepFurniture; ranges point at each block', () => {
  const items = [
    text('Running head', 'page_header'),
    { cls: 'section_header', text: 'A', level: 1 } as DocItem,
    text('Body text.'),
    text('3', 'page_footer'),
  ];
  const out = pageToMarkdown(items);
  assert.equal(out.markdown, '## A\n\nBody text.');
  assert.deepEqual(out.ranges, [undefined, { start: 0, end: 4 }, { start: 6, end: 16 }, undefined]);
  const kept = pageToMarkdown(items, { keepFurniture: true });
  assert.equal(kept.markdown, 'Running head\n\n## A\n\nBody text.\n\n3');
  kept.ranges.forEach((r, i) => assert.equal(kept.markdown.slice(r!.start, r!.end), renderRegionMarkdown(items[i]!)));
});

test('ranges of list items cover exactly their line', () => {
  const items = [text('Intro'), li('one'), li('two', 1)];
  const { markdown, ranges } = pageToMarkdown(items);
  assert.equal(markdown.slice(ranges[1]!.start, ranges[1]!.end), '- one');
  assert.equal(markdown.slice(ranges[2]!.start, ranges[2]!.end), '    - two');
});

test('checkboxes render as task items', () => {
  const md = pageToMarkdown(
    parseDocTags(
      '<checkbox_selected><loc_1><loc_2><loc_3><loc_4>Yes</checkbox_selected>\n<checkbox_unselected><loc_1><loc_2><loc_3><loc_4>No</checkbox_unselected>',
    )[0]!.items,
  ).markdown;
  assert.equal(md, '- [x] Yes\n\n- [ ] No');
});
