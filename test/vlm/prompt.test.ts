import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chatPrompt, layoutPrior, regionInstruction, stripWrapper, usePrior } from '../../server/vlm/prompt';
import { LoopGuard } from '../../server/util/loopGuard';
import type { DocItem } from '../../server/model/items';

test('chat template and instructions per class', () => {
  assert.equal(
    chatPrompt('<IMG>', 'Convert this page to docling.'),
    '<|start_of_role|>user<|end_of_role|><IMG>Convert this page to docling.<|end_of_text|>\n<|start_of_role|>assistant<|end_of_role|>',
  );
  assert.equal(regionInstruction('table'), 'Convert table to OTSL.');
  assert.equal(regionInstruction('formula'), 'Convert formula to LaTeX.');
  assert.equal(regionInstruction('code'), 'Convert code to text.');
  assert.equal(regionInstruction('text'), 'Convert this page to docling.');
  assert.equal(
    stripWrapper('<doctag><text><loc_1><loc_2><loc_3><loc_4>x</text>\n</doctag><|end_of_text|>'),
    '<text><loc_1><loc_2><loc_3><loc_4>x</text>',
  );
});

test('layout prior: boxes and classes only, inside <layout>…</layout>; setting auto/on/off', () => {
  const items: DocItem[] = [
    { cls: 'title', text: 'Secret pipeline text', grid: [10, 20, 300, 40] },
    { cls: 'list_item', text: 'item', grid: [10, 50, 300, 60], ordered: false },
    { cls: 'text', text: 'no box' },
  ];
  const prior = layoutPrior(items);
  assert.equal(
    prior,
    '<layout><title><loc_10><loc_20><loc_300><loc_40></title><unordered_list><list_item><loc_10><loc_50><loc_300><loc_60></list_item></unordered_list></layout>',
  );
  assert.ok(!prior.includes('Secret'));
  assert.equal(layoutPrior([{ cls: 'text', text: 'x' }]), '');
  assert.equal(usePrior('auto', items, true), true);
  assert.equal(usePrior('auto', items, false), false);
  assert.equal(usePrior('on', items, false), true);
  assert.equal(usePrior('off', items, true), false);
  assert.equal(usePrior('on', [], true), false);
});

test('loop guard: fires on a repeated cycle, not on a long row of empty table cells', () => {
  const g = new LoopGuard();
  let firedAt = -1;
  const cycle = [5, 6, 7];
  for (let i = 0; i < 40; i++) g.push(100 + i); // ordinary text first
  for (let i = 0; i < 300 && firedAt < 0; i++) if (g.push(cycle[i % 3])) firedAt = i;
  assert.ok(firedAt > 0 && firedAt < 100, `fired after ${firedAt} looping tokens`);
  assert.equal(g.period, 3);
  assert.equal(g.loopStart, 40);
  const table = new LoopGuard();
  const ecel = 9;
  const nl = 10;
  let fired = false;
  for (let row = 0; row < 3; row++) {
    for (let c = 0; c < 60; c++) fired ||= table.push(ecel);
    fired ||= table.push(nl);
  }
  assert.equal(fired, false, 'three rows of 60 empty cells are not a loop');
});
