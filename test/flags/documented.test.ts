/**
 * Every flag `folio convert` takes is documented where users look: the README's command line or a
 * page of docs/ names it (`--flag`, or its one-letter form). A flag added to a table without a
 * word in the docs (issue 39's `--keep-hidden-text` was the occasion) fails here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONVERT_FLAGS, parseConvertArgs } from '../../server/convertCommand/args';
import { engineOptions } from '../../server/convertCommand/engineOptions';
import { checkOptions } from '../../server/convert/checkParams';
import { repoRoot } from '../helpers/corpus';

test('every flag of folio convert is named in the README or in docs/', () => {
  const root = repoRoot();
  const docs = [
    readFileSync(join(root, 'README.md'), 'utf8'),
    ...readdirSync(join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => readFileSync(join(root, 'docs', f), 'utf8')),
  ].join('\n');
  const missing = Object.entries(CONVERT_FLAGS)
    .filter(([name, f]) => {
      const long = new RegExp(`--${name}(?![a-z-])`);
      const short = f.short ? new RegExp(`(^|[\\s\`\\[])-${f.short}(?![a-z-])`, 'm') : undefined;
      return !long.test(docs) && !(short && short.test(docs));
    })
    .map(([name]) => `--${name}`);
  assert.deepEqual(missing, []);
});

test('--keep-hidden-text reaches the conversion options, and the option is checked like the others', () => {
  assert.equal(engineOptions(parseConvertArgs(['a.pdf', '--keep-hidden-text'])).keepHiddenText, true);
  assert.equal(engineOptions(parseConvertArgs(['a.pdf'])).keepHiddenText, undefined);
  assert.equal(checkOptions({ keepHiddenText: true }), undefined);
  assert.match(checkOptions({ keepHiddenText: 'yes' }) ?? '', /keepHiddenText/);
});
