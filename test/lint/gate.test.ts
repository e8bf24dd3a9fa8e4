/**
 * The lint gate `npm test` runs (`npm run lint`: eslint.config.mjs, .prettierrc.json) catches what
 * issue 25 names: an import circle, a room boundary crossed (src/ importing server/), an
 * unformatted file. Each case writes real files into the tree, runs the real eslint / prettier
 * binaries on them with the project's configuration, and removes them; a clean pair of files is
 * the control (so a case cannot pass because the tools fail for another reason).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/corpus';

const root = repoRoot();
const ESLINT = join(root, 'node_modules', 'eslint', 'bin', 'eslint.js');
const PRETTIER = join(root, 'node_modules', 'prettier', 'bin', 'prettier.cjs');

function run(bin: string, args: string[]): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: root, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

/** Writes `files` (paths relative to the repository) for the body, then removes them. */
function withFiles(files: Record<string, string>, body: (paths: string[]) => void): void {
  const paths = Object.keys(files);
  try {
    for (const [p, text] of Object.entries(files)) {
      mkdirSync(join(root, p, '..'), { recursive: true });
      writeFileSync(join(root, p), text);
    }
    body(paths);
  } finally {
    for (const p of paths) rmSync(join(root, p), { force: true });
    rmSync(join(root, 'server', `lintgate-${process.pid}`), { recursive: true, force: true });
  }
}

const dir = `server/lintgate-${process.pid}`;

test('npm test runs the lint gate before the tests', () => {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  assert.match(pkg.scripts.test!, /npm run --silent lint && node --test/);
  assert.match(pkg.scripts.lint!, /eslint \. --max-warnings \d+ && prettier --check \./);
});

test('control: formatted files without a circle pass eslint and prettier', () => {
  withFiles(
    {
      [`${dir}/a.ts`]: "import { b } from './b';\n\nexport const a = (): number => b + 1;\n",
      [`${dir}/b.ts`]: 'export const b = 1;\n',
    },
    (paths) => {
      const e = run(ESLINT, paths);
      assert.equal(e.code, 0, e.out);
      const p = run(PRETTIER, ['--check', ...paths]);
      assert.equal(p.code, 0, p.out);
    },
  );
});

test('an import circle fails eslint (import/no-cycle)', () => {
  withFiles(
    {
      [`${dir}/a.ts`]: "import { b } from './b';\n\nexport const a = (): number => b() + 1;\n",
      [`${dir}/b.ts`]: "import { a } from './a';\n\nexport const b = (): number => a() - 1;\n",
    },
    (paths) => {
      const e = run(ESLINT, paths);
      assert.equal(e.code, 1, e.out);
      assert.match(e.out, /Dependency cycle detected\s+import\/no-cycle/);
    },
  );
});

test('the extension importing backend code fails eslint (the shared-layer rule)', () => {
  const file = `src/lintgate-${process.pid}.ts`;
  withFiles(
    { [file]: "import { pullModel } from '../server/modelStore/manager';\n\nexport const pull = pullModel;\n" },
    () => {
      const e = run(ESLINT, [file]);
      assert.equal(e.code, 1, e.out);
      assert.match(e.out, /reach the backend only through common\/.*no-restricted-imports/);
    },
  );
});

test('an unformatted file fails prettier --check, naming it', () => {
  withFiles({ [`${dir}/ugly.ts`]: 'export const   ugly = ( x:number )=>{return x+1}\n' }, (paths) => {
    const p = run(PRETTIER, ['--check', ...paths]);
    assert.notEqual(p.code, 0, p.out);
    assert.match(p.out, new RegExp(`lintgate-${process.pid}/ugly\\.ts`));
  });
});

test('backend rooms import only downwards: layout/ into pipeline/ or pdf/, speculative/ into vlm/, model/ into layout/ fail eslint', () => {
  const cases: Record<string, [string, RegExp]> = {
    [`server/layout/stages/lintgate-${process.pid}.ts`]: [
      "import type { PdfHandle } from '../../pipeline/index';\n\nexport type H = PdfHandle;\n",
      /'\.\.\/\.\.\/pipeline\/index' import is restricted.*layout\/ is pure computation/,
    ],
    [`server/layout/lintgate-${process.pid}.ts`]: [
      "import type { PdfHandle } from '../pdf/open';\n\nexport type H = PdfHandle;\n",
      /'\.\.\/pdf\/open' import is restricted.*layout\/ is pure computation/,
    ],
    [`server/speculative/lintgate-${process.pid}.ts`]: [
      "import { Tokenizer } from '../vlm/tokenizer';\n\nexport const T = Tokenizer;\n",
      /'\.\.\/vlm\/tokenizer' import is restricted.*speculative\/ is below vlm\//,
    ],
    [`server/model/lintgate-${process.pid}.ts`]: [
      "import type { Line } from '../layout/lines/line';\n\nexport type L = Line;\n",
      /'\.\.\/layout\/lines\/line' import is restricted.*server\/model\/ is the floor/,
    ],
  };
  withFiles(Object.fromEntries(Object.entries(cases).map(([p, [text]]) => [p, text])), (paths) => {
    for (const p of paths) {
      const e = run(ESLINT, [p]);
      assert.equal(e.code, 1, `${p}: ${e.out}`);
      assert.match(e.out, cases[p]![1], p);
    }
  });
});

test('control: layout/ importing server/model/ and common/ passes, and the editor rule still holds there', () => {
  const ok = `server/layout/lintgate-ok-${process.pid}.ts`;
  const editor = `server/layout/lintgate-editor-${process.pid}.ts`;
  withFiles(
    {
      [ok]: "import type { BBox } from '../../common/protocol';\nimport type { TextSpan } from '../model/content';\n\nexport type S = TextSpan & { box: BBox };\n",
      [editor]: "import * as vscode from 'vscode';\n\nexport const v = vscode;\n",
    },
    () => {
      const good = run(ESLINT, [ok]);
      assert.equal(good.code, 0, good.out);
      const bad = run(ESLINT, [editor]);
      assert.equal(bad.code, 1, bad.out);
      assert.match(bad.out, /server\/ runs without VS Code/);
    },
  );
});
