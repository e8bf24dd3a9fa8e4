import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeText, stripInline } from '../../eval/metrics/normalize';
import { parseMarkdown, parsePlainText } from '../../eval/metrics/markdown';

test('normalizeText: ligatures, quotes, dashes, spaces, bullets', () => {
  assert.equal(
    normalizeText('The \uFB01ne \u201Cquoted\u201D \u2014 it\u2019s\n\n  here'),
    'The fine "quoted" - it\'s here',
  );
  assert.equal(normalizeText('\u2022 first\n\u2022 second'), 'first second');
  assert.equal(normalizeText('soft\u00ADhyphen\u200B'), 'softhyphen');
});

test('stripInline: emphasis, links, images, code, escapes, math', () => {
  assert.equal(stripInline('**bold** and *it* [link](http://x.y) `a_b` \\_x $W$'), 'bold and it link a_b _x W');
  assert.equal(stripInline('see ![alt](a.png) <!-- image --> done').replace(/\s+/g, ' '), 'see done');
  assert.equal(stripInline('snake_case_name stays'), 'snake_case_name stays');
});

test('stripInline: entities render as their characters, once (a pipe as Docling and as Folio write it)', () => {
  // Docling's pipe table writes a cell's "|" as `&#124;`, Folio's as `\|`: a reader sees the same.
  assert.equal(stripInline('Dominguez&#124;Mcmillan'), stripInline('Dominguez\\|Mcmillan'));
  assert.equal(stripInline('Dominguez&#124;Mcmillan'), 'Dominguez|Mcmillan');
  assert.equal(stripInline('&#x7C; &lt;b&gt; &amp; &quot;q&quot;'), '| <b> & "q"');
  // `&amp;lt;` is the text "&lt;", not "<"; an out-of-range reference stays as written.
  assert.equal(stripInline('&amp;lt; &amp;#124; &#0; &#9999999;'), '&lt; &#124; &#0; &#9999999;');
});

test('parseMarkdown: headings, nested lists, code, formula, pictures, paragraphs', () => {
  const md = [
    '# Title',
    '',
    'Intro line one',
    'continues here.',
    '',
    '## Part *2*',
    '',
    '- a',
    '  - b',
    '- c',
    '',
    '1. one',
    '2. two',
    '',
    '```python',
    'x = 1',
    '```',
    '',
    '$$E = mc^2$$',
    '',
    '<!-- image -->',
    '<!-- formula-not-decoded -->',
    'Setext',
    '======',
  ].join('\n');
  const b = parseMarkdown(md);
  assert.deepEqual(
    b.map((x) => [x.kind, x.text, x.level ?? null]),
    [
      ['heading', 'Title', 1],
      ['paragraph', 'Intro line one continues here.', null],
      ['heading', 'Part 2', 2],
      ['list_item', 'a', 0],
      ['list_item', 'b', 1],
      ['list_item', 'c', 0],
      ['list_item', 'one', 0],
      ['list_item', 'two', 0],
      ['code', 'x = 1', null],
      ['formula', 'E = mc^2', null],
      ['picture', '', null],
      ['formula', '', null],
      ['heading', 'Setext', 1],
    ],
  );
  assert.equal(b[6].ordered, true);
  assert.equal(b[3].ordered, false);
});

test('parseMarkdown: GFM and HTML tables with spans', () => {
  const md =
    '| A | B |\n|---|:-:|\n| 1 | 2 \\| 3 |\n\n<table><tr><th colspan="2">H</th></tr>\n<tr><td>x</td><td rowspan=2>y</td></tr></table>\n';
  const tables = parseMarkdown(md).filter((x) => x.kind === 'table');
  assert.equal(tables.length, 2);
  assert.deepEqual(
    tables[0].table!.rows.map((r) => r.map((c) => c.text)),
    [
      ['A', 'B'],
      ['1', '2 | 3'],
    ],
  );
  assert.equal(tables[0].table!.rows[0][0].header, true);
  const h = tables[1].table!;
  assert.deepEqual(
    h.rows.map((r) => r.map((c) => [c.text, c.rowspan, c.colspan])),
    [
      [['H', 1, 2]],
      [
        ['x', 1, 1],
        ['y', 2, 1],
      ],
    ],
  );
});

test('parsePlainText: blank lines and form feeds split paragraphs; no Markdown read', () => {
  const b = parsePlainText('# not a heading\nline\n\n* star\f next');
  assert.deepEqual(
    b.map((x) => [x.kind, x.text]),
    [
      ['paragraph', '# not a heading\nline'],
      ['paragraph', '* star'],
      ['paragraph', 'next'],
    ],
  );
});
