/**
 * The Node versions Folio says it supports (package.json `engines.node`, README "Node
 * versions"): the CLI converts the repo's sample PDF to the same Markdown on the lowest supported
 * Node (22.13.0), on Node 24, and on the Node running the tests (Node 20 on this project's CI:
 * end of life, best effort through the pdf.js polyfills in server/pdf/pdfjs.ts).
 *
 * Node 22.13.0 and 24 come from the npm registry into the e2e cache (test/e2e/setup.sh, run by
 * `npm test`'s pretest); without them this test fails and says how to get them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/corpus';
import { cachedNode } from '../helpers/cachedNode';

const repo = repoRoot();
const FLOOR = cachedNode('node-floor');
const NODE24 = cachedNode('node24');

function version(node: string): string {
  return spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
}

test('engines.node names the lowest Node the tests run the CLI on', () => {
  const engines = (JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { engines: { node: string } })
    .engines;
  assert.ok(existsSync(FLOOR), `${FLOOR} missing: run \`bash test/e2e/setup.sh\` (npm test's pretest does)`);
  assert.equal(`>=${version(FLOOR).replace(/^v/, '').replace(/\.0$/, '')}`, engines.node);
});

test(
  "the CLI converts the sample PDF to the same Markdown on Node 22.13, Node 24 and the test runner's Node",
  { timeout: 180_000 },
  () => {
    const cli = join(repo, 'dist', 'cli.js');
    assert.ok(existsSync(cli), `${cli} missing: run \`node esbuild.mjs\``);
    const work = mkdtempSync(join(tmpdir(), 'folio-node-versions-'));
    try {
      const outputs = new Map<string, string>();
      for (const node of [FLOOR, NODE24, process.execPath]) {
        assert.ok(existsSync(node), `${node} missing: run \`bash test/e2e/setup.sh\` (npm test's pretest does)`);
        const v = version(node);
        const out = join(work, v);
        const r = spawnSync(node, [cli, 'convert', join(repo, 'test', 'fixtures', 'sample.pdf'), '-o', out + '/'], {
          cwd: repo,
          encoding: 'utf8',
          timeout: 120_000,
        });
        assert.equal(r.status, 0, `CLI on Node ${v} exited ${r.status}:\n${r.stderr.slice(-2000)}`);
        const md = readFileSync(join(out, 'sample.md'), 'utf8');
        assert.ok(md.length > 200, `Node ${v}: nearly empty Markdown`);
        outputs.set(v, md);
      }
      const [first, ...rest] = [...outputs.entries()];
      for (const [v, md] of rest) assert.equal(md, first[1], `Node ${v} and Node ${first[0]} wrote different Markdown`);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  },
);
