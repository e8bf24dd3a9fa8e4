/**
 * The request's options over the service's own (`toConvertOptions`): `keep_hidden_text` is sent
 * only when on, and a request's `false` wins over a base that keeps hidden text.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseApiOptions, toConvertOptions } from '../../server/serve/options';

test('keep_hidden_text: absent unless on; a request can turn it on or off over the base', () => {
  assert.equal('keepHiddenText' in toConvertOptions({}, {}), false);
  assert.equal(toConvertOptions(parseApiOptions({ keep_hidden_text: 'true' }), {}).keepHiddenText, true);
  assert.equal(toConvertOptions({}, { keepHiddenText: true }).keepHiddenText, true);
  assert.equal('keepHiddenText' in toConvertOptions({ keep_hidden_text: false }, { keepHiddenText: true }), false);
});
