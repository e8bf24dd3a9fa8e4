import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Tokenizer, toJsPattern } from '../../server/vlm/tokenizer';
import { tinyModels } from './tinyModels';

let fx: ReturnType<typeof tinyModels>;
let tok: Tokenizer;
before(() => {
  fx = tinyModels();
  tok = Tokenizer.fromFile(join(fx.dirs.page, 'tokenizer.json'));
});
after(() => fx?.cleanup());

test('added tokens are single ids, matched before BPE; text round-trips through bytes', () => {
  const text = '<|start_of_role|>user<|end_of_role|><text><loc_12><loc_499>Tiny fixture page, naïve 3.14€</text>';
  const ids = tok.encode(text);
  assert.equal(ids[0], tok.id('<|start_of_role|>'));
  assert.ok(ids.includes(tok.id('<loc_499>')));
  assert.ok(ids.includes(tok.id('Tiny')), 'BPE merges build whole words');
  assert.ok(ids.includes(tok.id('Ġfixture')));
  assert.equal(tok.decode(ids), text);
  assert.equal(tok.decode(ids, { skipSpecial: true }).startsWith('user'), true);
});

test('encode(decode(ids)) gives the ids back for model-style output', () => {
  const ids = ['<doctag>', '<text>', '<loc_1>', '<loc_2>', '<loc_3>', '<loc_4>', 'Tiny', 'Ġfixture', 'Ġpage', '</text>', '</doctag>'].map((t) => tok.id(t));
  assert.deepEqual(tok.encode(tok.decode(ids)), ids);
});

test('scoped case-insensitive groups are rewritten for JavaScript regexes', () => {
  const re = new RegExp(toJsPattern("(?i:'s|'t)|\\p{L}+"), 'gu');
  assert.deepEqual("it'S a".match(re), ['it', "'S", 'a']);
});
