/**
 * No circle between product files, type-only imports included (issue 42). eslint's
 * `import/no-cycle` skips `import type`, so a circle made of types alone (`classify.ts` ↔
 * `headingRoles.ts`, `convertDocument.ts` ↔ `structuredInput.ts` before) passes the lint gate; this
 * test reads every relative `import`, `export … from` and `import()` of `server/`, `src/`,
 * `common/` and `media/` and fails naming the files of any circle. The cure is the shared type in
 * its own file (layout/blocks/pageInfo.ts, convert/sink.ts, pdf/textRun.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { repoRoot } from '../helpers/corpus';

const ROOMS = ['server', 'src', 'common', 'media'];
const IMPORT = /(?:import|export)\s[^;]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

function tsFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) tsFiles(p, out);
    else if (p.endsWith('.ts')) out.push(p);
  }
  return out;
}

function importsOf(file: string): string[] {
  const deps: string[] = [];
  for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
    const base = resolve(dirname(file), m[1] ?? m[2]);
    const hit = [`${base}.ts`, join(base, 'index.ts')].find((c) => existsSync(c));
    if (hit) deps.push(hit);
  }
  return deps;
}

/** Strongly connected components of more than one file (Tarjan). */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const scc: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      scc.push(w);
    } while (w !== v);
    if (scc.length > 1) found.push(scc);
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

test('no import circle between product files, type-only imports included', () => {
  const root = repoRoot();
  const files = ROOMS.flatMap((r) => tsFiles(join(root, r)));
  assert.ok(files.length > 200, `read ${files.length} files`);
  const graph = new Map(files.map((f) => [f, importsOf(f)]));
  const edges = [...graph.values()].reduce((n, d) => n + d.length, 0);
  assert.ok(edges > 500, `read ${edges} imports`);
  const found = circles(graph).map((c) => c.map((f) => relative(root, f)).join(' ↔ '));
  assert.deepEqual(found, []);
});

test('the reader sees a type-only circle', () => {
  const a = '/x/a.ts';
  const b = '/x/b.ts';
  assert.deepEqual(
    circles(
      new Map([
        [a, [b]],
        [b, [a]],
      ]),
    ).length,
    1,
  );
  assert.deepEqual(
    circles(
      new Map([
        [a, [b]],
        [b, []],
      ]),
    ).length,
    0,
  );
  // `import type` is read like any import.
  const line = "import type { PageInfo } from './pageInfo';";
  assert.deepEqual(
    [...line.matchAll(IMPORT)].map((m) => m[1]),
    ['./pageInfo'],
  );
});
