/**
 * The service's route families are Fastify plugins over one ServeContext (server/serve/routes/):
 * each registered alone on a bare Fastify, with only the service's error handler, answers what it
 * answers inside `buildServer` — a plugin takes everything it needs from the context it is given,
 * nothing from how buildServer wires the rest. Real runner (no conversion is started), requests
 * through Fastify's inject.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import Fastify, { type FastifyInstance, type InjectOptions } from 'fastify';
import websocket from '@fastify/websocket';
import multipart from '@fastify/multipart';
import { repoRoot } from '../helpers/corpus';
import { PageWorkerPool } from '../../server/worker/pool';
import { buildServer, type ServeConfig } from '../../server/serve/app';
import { InProcessRunner } from '../../server/serve/tasks';
import { WorkDir } from '../../server/serve/workdir';
import { ServeContext } from '../../server/serve/context';
import { errorHandler, multipartOptions } from '../../server/serve/hooks';
import type { RoutePlugin } from '../../server/serve/routes/shared';
import { metaRoutes } from '../../server/serve/routes/meta';
import { convertRoutes } from '../../server/serve/routes/convert';
import { taskRoutes } from '../../server/serve/routes/tasks';
import { doclingCompatRoutes } from '../../server/serve/routes/doclingCompat';

let dir: string;
let pool: PageWorkerPool;
let runner: InProcessRunner;
let cfg: ServeConfig;
let full: FastifyInstance;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'folio-route-plugins-'));
  pool = new PageWorkerPool({ size: 1, script: join(repoRoot(), 'dist', 'pageWorker.js') });
  const work = new WorkDir(join(dir, 'work'));
  runner = new InProcessRunner(pool, work, { maxPages: 40, timeoutMs: 60_000, retentionMs: 60_000 }, 1);
  cfg = { runner, work, baseOptions: { engine: 'pipeline' }, maxUploadBytes: 1024 * 1024, version: 'plugins' };
  full = await buildServer(cfg);
});
after(async () => {
  await full?.close();
  await runner?.close();
  await pool?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/** One route family on a bare Fastify: the service's error handler and that plugin (with the Fastify plugins it uses), nothing else. */
async function alone(plugin: RoutePlugin, first?: (app: FastifyInstance) => void): Promise<FastifyInstance> {
  const ctx = new ServeContext(cfg);
  const app = Fastify();
  first?.(app);
  app.setErrorHandler(errorHandler(ctx));
  // The Fastify plugins a family's routes use, as buildServer registers them.
  if (plugin === taskRoutes) await app.register(websocket);
  if (plugin === convertRoutes) await app.register(multipart, multipartOptions(ctx));
  await app.register(plugin, { ctx });
  return app;
}

const FAMILIES: [string, RoutePlugin, InjectOptions[]][] = [
  [
    'meta',
    metaRoutes,
    [
      { method: 'GET', url: '/health' },
      { method: 'GET', url: '/ready' },
      { method: 'GET', url: '/version' },
    ],
  ],
  [
    'convert',
    convertRoutes,
    [
      { method: 'POST', url: '/v1/convert/source', payload: { nope: 1 } },
      { method: 'POST', url: '/v1/chunk/hybrid/source/async', payload: { options: {} } },
      { method: 'POST', url: '/v1/convert/source', payload: { sources: [] } },
      { method: 'POST', url: '/v1/convert/source', payload: { path: 'a.pdf' } },
      { method: 'POST', url: '/v1/chunk/hierarchical/file', payload: { a: 1 } },
    ],
  ],
  [
    'tasks',
    taskRoutes,
    [
      { method: 'GET', url: '/v1/status/poll/0123456789abcdef0123456789abcdef' },
      { method: 'GET', url: '/v1/result/not-a-task' },
      { method: 'GET', url: '/v1/result/abc?target=tar' },
      { method: 'POST', url: '/v1/tasks/abc/cancel' },
    ],
  ],
  [
    'doclingCompat',
    doclingCompatRoutes,
    [
      { method: 'POST', url: '/v1/convert/source/batch', payload: { target: { kind: 'presigned_url' } } },
      { method: 'POST', url: '/v1/convert/source/batch', payload: { targets: [{ kind: 's3' }] } },
      { method: 'GET', url: '/v1/clear/converters' },
      { method: 'GET', url: '/v1/clear/results?older_then=5' },
    ],
  ],
];

for (const [name, plugin, requests] of FAMILIES) {
  test(`the ${name} routes registered alone answer as inside buildServer`, async () => {
    const app = await alone(plugin);
    try {
      for (const r of requests) {
        const [got, want] = [await app.inject(r), await full.inject(r)];
        const what = `${r.method} ${r.url}`;
        assert.equal(got.statusCode, want.statusCode, what);
        assert.equal(got.headers['content-type'], want.headers['content-type'], what);
        assert.deepEqual(got.json(), want.json(), what);
      }
    } finally {
      await app.close();
    }
  });
}

test('the route families together are every route buildServer serves', async () => {
  const seen: { method: string; url: string }[] = [];
  const apps = await Promise.all(
    FAMILIES.map(([, plugin]) =>
      alone(plugin, (app) =>
        app.addHook('onRoute', (r) => {
          for (const method of [r.method].flat()) seen.push({ method, url: r.url });
        }),
      ),
    ),
  );
  try {
    for (const r of seen)
      assert.ok(full.hasRoute(r as Parameters<FastifyInstance['hasRoute']>[0]), `${r.method} ${r.url}`);
    // Each route with each of its methods, as Fastify's route tree lists them.
    const count = (a: FastifyInstance) =>
      [...a.printRoutes({ commonPrefix: false }).matchAll(/\(([A-Z, ]+)\)/g)].reduce(
        (n, m) => n + m[1]!.split(',').length,
        0,
      );
    const inFull = count(full);
    assert.equal(
      apps.map(count).reduce((a, b) => a + b, 0),
      inFull,
    );
    assert.equal(seen.length, inFull);
    assert.ok(inFull >= 14 * 2, `${inFull} route methods`);
  } finally {
    await Promise.all(apps.map((a) => a.close()));
  }
});
