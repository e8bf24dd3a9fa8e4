import { test } from 'node:test';
import assert from 'node:assert/strict';
import { regionItem } from '../../server/vlm/convert';
import type { DocItem } from '../../server/model/items';

const out = (text: string, reason: 'stop' | 'max' | 'loop' = 'stop') => ({ text, tokens: [1, 2, 3], reason });

test('region output → item: the pipeline keeps class and box, the VLM gives the content', () => {
  const table: DocItem = { cls: 'table', text: '', grid: [10, 10, 200, 100], id: 'p1-r3' };
  const t = regionItem(
    table,
    out('<otsl><loc_0><loc_0><loc_499><loc_499><ched>Name<ched>Age<nl><fcel>Ann<fcel>31<nl></otsl><|end_of_text|>'),
  );
  assert.deepEqual(t!.grid, [10, 10, 200, 100]);
  assert.equal(t!.id, 'p1-r3');
  assert.deepEqual(
    t!.table!.map((r) => r.map((c) => `${c.tag}:${c.text}`)),
    [
      ['ched:Name', 'ched:Age'],
      ['fcel:Ann', 'fcel:31'],
    ],
  );
  assert.equal(regionItem(table, out('just words, no OTSL')), undefined, 'a table without OTSL is unusable');

  const formula: DocItem = { cls: 'formula', text: 'x2', grid: [1, 2, 3, 4] };
  assert.equal(
    regionItem(formula, out('<formula><loc_5><loc_5><loc_400><loc_60>E = mc^{2}</formula>'))!.text,
    'E = mc^{2}',
  );
  assert.equal(regionItem(formula, out('\\frac{a}{b}'))!.text, '\\frac{a}{b}', 'bare LaTeX is kept');

  const text: DocItem = { cls: 'section_header', level: 2, text: 'old', grid: [1, 2, 3, 4] };
  const h = regionItem(
    text,
    out('<doctag><section_header_level_1><loc_1><loc_1><loc_9><loc_9>Results</section_header_level_1></doctag>'),
  );
  assert.equal(h!.cls, 'section_header');
  assert.equal(h!.level, 2);
  assert.equal(h!.text, 'Results');

  assert.equal(regionItem(text, out('la la la', 'loop')), undefined, 'a looping region falls back');
  assert.equal(regionItem(text, out('   ')), undefined, 'an empty answer falls back');
});
