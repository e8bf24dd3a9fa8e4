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

test('the assembled real tokenizer: known ids, added tags single ids, <loc_N> several pieces; text round-trips through bytes', () => {
  // Ids from ../shared/models/README.md (the real tokenizer_config.json / config.json).
  assert.equal(tok.id('<|end_of_text|>'), 100257);
  assert.equal(tok.id('<|start_of_role|>'), 100264);
  assert.equal(tok.id('<image>'), 100270);
  assert.equal(tok.id('<fake_token_around_image>'), 100339);
  assert.equal(tok.id('<global-img>'), 100340);
  assert.equal(tok.id('<end_of_utterance>'), 100352);
  for (const t of [
    '<text>',
    '</text>',
    '<otsl>',
    '<fcel>',
    '<nl>',
    '<section_header_level_6>',
    '<doctag>',
    '</doctag>',
  ])
    assert.ok(tok.isAdded(tok.id(t)), t);
  for (const t of ['<loc_0>', '<loc_499>', '<srow>', '<inline>', '<section_header_level_7>'])
    assert.equal(tok.tryId(t), undefined, `${t} is not a token`);
  assert.deepEqual(
    tok.encode('<loc_499>').map((i) => tok.token(i)),
    ['<', 'loc', '_', '499', '>'],
  );
  assert.deepEqual(
    tok.encode('<loc_1><loc_2>').map((i) => tok.token(i)),
    ['<', 'loc', '_', '1', '><', 'loc', '_', '2', '>'],
  );
  const text = '<|start_of_role|>user<|end_of_role|><text><loc_12><loc_499>Tiny fixture page, naïve 3.14€</text>';
  const ids = tok.encode(text);
  assert.equal(ids[0], tok.id('<|start_of_role|>'));
  assert.ok(ids.includes(tok.id('Ġfixture')), 'BPE merges build whole words');
  assert.equal(tok.decode(ids), text);
  assert.equal(tok.decode(ids, { skipSpecial: true }).startsWith('user'), true);
});

test('encode(decode(ids)) gives the ids back for model-style output', () => {
  const ids = tok.encode('<doctag><text><loc_1><loc_2><loc_3><loc_4>Tiny fixture page</text></doctag>');
  assert.deepEqual(tok.encode(tok.decode(ids)), ids);
});

test('scoped case-insensitive groups are rewritten for JavaScript regexes', () => {
  const re = new RegExp(toJsPattern("(?i:'s|'t)|\\p{L}+"), 'gu');
  assert.deepEqual("it'S a".match(re), ['it', "'S", 'a']);
});
