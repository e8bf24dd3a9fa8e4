/** docs/scaling.md's Compose and Kubernetes examples parse as YAML and name the parts the text describes. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { repoRoot } from '../helpers/corpus';
import { SERVE_FLAGS } from '../../server/serve/serveCommand';
import { WORKER_FLAGS } from '../../server/queue/workerCommand';

function yamlBlocks(): string[] {
  const md = readFileSync(join(repoRoot(), 'docs', 'scaling.md'), 'utf8');
  return [...md.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]);
}

test('the Compose file: Redis, the service and workers on the same Redis URL, optional vLLM', () => {
  const [compose] = yamlBlocks();
  const docs = parseAllDocuments(compose);
  assert.equal(docs.length, 1);
  assert.deepEqual(docs[0].errors, []);
  const c = docs[0].toJS() as {
    services: Record<string, { command: string[]; profiles?: string[]; environment?: Record<string, string> }>;
  };
  assert.deepEqual(Object.keys(c.services).sort(), ['folio', 'redis', 'vllm', 'worker']);
  assert.deepEqual(c.services.worker.command.slice(2, 5), ['worker', '--redis', 'redis://redis:6379']);
  assert.ok(c.services.folio.command.includes('serve') && c.services.folio.command.includes('redis://redis:6379'));
  assert.deepEqual(c.services.vllm.profiles, ['vlm']);
  // Redis requires a password, and the service and workers read the same one from the environment (SECURITY.md, queue worker).
  const pass = c.services.redis.command[c.services.redis.command.indexOf('--requirepass') + 1];
  assert.match(pass ?? '', /^\$\{REDIS_PASSWORD:\?/);
  for (const s of ['folio', 'worker'])
    assert.equal(c.services[s].environment?.FOLIO_REDIS_PASSWORD, pass, `${s} has Redis's password`);
  assert.ok(c.services.vllm.command.includes('--revision') && c.services.vllm.command.includes('untied'));
});

test('the Kubernetes manifests: Redis, its Service, N workers and the service with probes', () => {
  const blocks = yamlBlocks();
  assert.equal(blocks.length, 2);
  const docs = parseAllDocuments(blocks[1]);
  for (const d of docs) assert.deepEqual(d.errors, []);
  const objs = docs.map((d) => d.toJS() as any);
  assert.deepEqual(
    objs.map((o) => `${o.kind}/${o.metadata.name}`),
    [
      'Deployment/folio-redis',
      'Service/folio-redis',
      'Deployment/folio-worker',
      'Deployment/folio-serve',
      'Service/folio-serve',
    ],
  );
  const worker = objs[2].spec.template.spec.containers[0];
  assert.deepEqual(worker.args.slice(2, 5), ['worker', '--redis', 'redis://folio-redis:6379']);
  assert.equal(objs[2].spec.replicas, 4);
  const redis = objs[0].spec.template.spec.containers[0];
  assert.ok(redis.args.includes('--requirepass'), 'Redis requires a password');
  const secret = (c: { env?: { name: string; valueFrom?: { secretKeyRef?: { key: string } } }[] }, name: string) =>
    c.env?.find((e) => e.name === name)?.valueFrom?.secretKeyRef?.key;
  assert.equal(secret(redis, 'REDIS_PASSWORD'), 'redis-password');
  assert.equal(secret(worker, 'FOLIO_REDIS_PASSWORD'), 'redis-password');
  assert.equal(secret(objs[3].spec.template.spec.containers[0], 'FOLIO_REDIS_PASSWORD'), 'redis-password');
  const serve = objs[3].spec.template.spec.containers[0];
  assert.equal(serve.readinessProbe.httpGet.path, '/ready');
  assert.equal(serve.livenessProbe.httpGet.path, '/health');
  for (const o of objs.filter((x) => x.kind === 'Deployment'))
    assert.deepEqual(o.spec.selector.matchLabels, o.spec.template.metadata.labels);
});

test('the CLI flags the examples use exist', () => {
  const text = yamlBlocks().join('\n');
  const flags = new Set([...text.matchAll(/"(--[a-z-]+)"/g)].map((m) => m[1]));
  // The commands' own flag tables (server/flags), not their source text.
  const known = new Set([...Object.keys(SERVE_FLAGS), ...Object.keys(WORKER_FLAGS)].map((name) => `--${name}`));
  assert.ok(flags.size > 0, 'the examples name no flag: the YAML blocks were not found');
  for (const f of flags) {
    if (f === '--revision' || f === '--model' || f === '--save' || f === '--appendonly' || f === '--requirepass')
      continue; // vLLM's and Redis's own
    assert.ok(known.has(f), `${f} is a folio serve/worker flag`);
  }
});
