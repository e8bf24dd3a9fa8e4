import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeCorpusPdf, bodyText, positions } from './analyze';

// The selfmade sample is one Markdown source; its paragraphs must come out in source order even
// though the page sets them in two columns with a narrow (8 pt) gutter.
const ORDER = [
  'Sliding Window Attention',
  'We describe a transformer variant',
  'Large language models spend most',
  'The contributions of this note are',
  'Scaled dot-product attention',
  'The cache stores the keys',
  'compares the models on a selection',
  'A fixed-size rolling cache halves',
];

for (const file of ['sample.xelatex-2col.pdf', 'sample.chromium-2col.pdf']) {
  test(`two-column reading order: ${file}`, async () => {
    const pages = await analyzeCorpusPdf(`selfmade-example/${file}`);
    const text = bodyText(pages);
    const pos = positions(text, ORDER);
    for (let i = 1; i < pos.length; i++)
      assert.ok(pos[i] > pos[i - 1], `"${ORDER[i]}" should come after "${ORDER[i - 1]}"`);
    // No line mixes the two columns: the end of a left-column line never meets the right column's text.
    assert.doesNotMatch(text, /grouped-?\s*Table 1 compares/);
  });
}

test('a label/value grid is read row by row, not column by column', async () => {
  const pages = await analyzeCorpusPdf('docling-src-rendered/html/kvp_data_example.html.pdf');
  const text = bodyText(pages);
  const [restaurant, docling, telephone] = positions(text, ['Restaurant', 'Docling', 'Telephone']);
  assert.ok(restaurant < docling && docling < telephone, 'each value follows its label');
});
