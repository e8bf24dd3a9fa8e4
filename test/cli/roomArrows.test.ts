/**
 * The rooms around `folio convert` import one way (ARCHITECTURE.md): `cli/` and `queue/` both use
 * `convertCommand/`, `cli/` loads `queue/` lazily, and neither `queue/` nor `convertCommand/`
 * imports `cli/` — a circle there is what issue #22 found. Read from the sources, so a new
 * import that closes the circle fails here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/corpus';

/** Every relative module a room's files import (static `from '…'` and dynamic `import('…')`). */
function importsOf(room: string): { file: string; spec: string }[] {
  const dir = join(repoRoot(), 'server', room);
  const found: { file: string; spec: string }[] = [];
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.ts'))) {
    const text = readFileSync(join(dir, name), 'utf8');
    for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*)'(\.[^']+)'/g))
      found.push({ file: `${room}/${name}`, spec: m[1] });
  }
  assert.ok(found.length > 0, `no imports read from server/${room}: wrong folder?`);
  return found;
}

test('queue/ never imports cli/', () => {
  const bad = importsOf('queue').filter((i) => /^\.\.\/cli(\/|$)/.test(i.spec));
  assert.deepEqual(bad, []);
});

test('convertCommand/ imports neither cli/ nor queue/', () => {
  const bad = importsOf('convertCommand').filter((i) => /^\.\.\/(cli|queue)(\/|$)/.test(i.spec));
  assert.deepEqual(bad, []);
});

test('cli/ and queue/ both take the convert arguments from convertCommand/', () => {
  assert.ok(importsOf('cli').some((i) => i.spec === '../convertCommand/args'));
  assert.ok(importsOf('queue').some((i) => i.spec === '../convertCommand/args'));
});
