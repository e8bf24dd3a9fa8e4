/**
 * The installed fonts are loaded at the first render, not when pdf.js loads the canvas
 * (server/pdf/systemFonts.ts, CLI start-up): before a render the canvas knows no system font,
 * after it exactly the families a canvas loaded the usual way knows; a page rendered after the
 * deferral is rendered with the same fonts. Each case runs in a fresh Node process (the canvas
 * reads the switch once, when it is loaded).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { repoRoot } from '../helpers/corpus';

/** Runs `body` in a fresh Node process with the built test bundle's modules; returns its JSON line. */
function child(body: string, env: NodeJS.ProcessEnv = {}): unknown {
  const childEnv = { ...process.env, ...env };
  if (!('DISABLE_SYSTEM_FONTS_LOAD' in env)) delete childEnv.DISABLE_SYSTEM_FONTS_LOAD;
  const r = spawnSync(process.execPath, ['-e', body], {
    cwd: repoRoot(),
    encoding: 'utf8',
    env: childEnv,
    timeout: 120_000,
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout.trim().split('\n').pop()!);
}

// The module under test as CommonJS source, evaluated in the child (the canvas is loaded there).
// (esbuild loaded at run time, not bundled into this test.)
const { buildSync } = createRequire(__filename)('esbuild') as typeof import('esbuild');
const moduleCode = buildSync({
  entryPoints: [join(repoRoot(), 'server', 'pdf', 'systemFonts.ts')],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  write: false,
  logLevel: 'error',
  external: ['@napi-rs/canvas'],
}).outputFiles[0]!.text;
const load = `const m = { exports: {} }; new Function('module', 'exports', 'require', ${JSON.stringify(moduleCode)})(m, m.exports, require);`;

test('system fonts: none before the first render, the usual families after it', () => {
  const usual = child(
    `const { GlobalFonts } = require('@napi-rs/canvas'); console.log(JSON.stringify(GlobalFonts.families.map((f) => f.family).sort()))`,
  ) as string[];
  const deferred = child(`
    ${load}
    m.exports.deferSystemFonts();
    const { GlobalFonts } = require('@napi-rs/canvas');
    const before = GlobalFonts.families.length;
    m.exports.loadDeferredSystemFonts();
    m.exports.loadDeferredSystemFonts(); // once only
    console.log(JSON.stringify({ before, after: GlobalFonts.families.map((f) => f.family).sort() }));`) as {
    before: number;
    after: string[];
  };
  assert.equal(deferred.before, 0, 'no system font loaded with the canvas');
  assert.deepEqual(deferred.after, usual, 'after the first render: the families the canvas would have loaded');
  // A user's own DISABLE_SYSTEM_FONTS_LOAD is kept: no fonts, even at a render.
  const off = child(
    `
    ${load}
    m.exports.deferSystemFonts();
    const { GlobalFonts } = require('@napi-rs/canvas');
    m.exports.loadDeferredSystemFonts();
    console.log(JSON.stringify(GlobalFonts.families.length));`,
    { DISABLE_SYSTEM_FONTS_LOAD: '1' },
  );
  assert.equal(off, 0);
});
