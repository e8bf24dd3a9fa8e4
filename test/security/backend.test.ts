/**
 * Issue 10 through the real backend process: every request's parameters are checked (item 2),
 * documents opened for reparse are closed when idle (item 9), and a converted picture is linked
 * in the page's Markdown to a file that exists (item 8).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BackendProcess } from '../helpers/backend';
import { corpusPath, repoRoot } from '../helpers/corpus';
import type { ConvertOptions } from '../../common/protocol';

let backend: BackendProcess;
let dir: string;
const sample = () => pathToFileURL(join(repoRoot(), 'test', 'fixtures', 'sample.pdf')).href;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'folio-sec-be-'));
  backend = await BackendProcess.start({ FOLIO_REPARSE_IDLE_MS: '400', FOLIO_CACHE_DIR: join(dir, 'cache') });
});
after(async () => {
  await backend.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function refused(options: unknown, pattern: RegExp): Promise<void> {
  await assert.rejects(
    backend.convert({ uri: sample(), pages: '1', options: options as ConvertOptions }).result,
    (e: { code?: number; message?: string }) => {
      assert.equal(e.code, -32602, e.message);
      assert.match(e.message ?? '', pattern);
      return true;
    },
  );
}

test('hostile options are refused on every request, naming the field', async () => {
  await refused({ cacheDir: `${dir}/cache/../../etc` }, /options\.cacheDir must not contain "\.\."/);
  await refused({ cacheDir: 'relative/cache' }, /options\.cacheDir must be an absolute path/);
  await refused({ modelsDir: 42 }, /options\.modelsDir must be a folder path/);
  await refused({ engine: 'vlm<script>' }, /options\.engine must be one of pipeline, vlm/);
  await refused({ scale: 1e9 }, /options\.scale/);
  await refused({ providers: Array.from({ length: 100_000 }, () => 'cpu') }, /options\.providers/);
  await refused(
    { markdownDir: join(dir, 'md'), assetsDir: join(dir, 'elsewhere', 'x.assets') },
    /assetsDir must be a folder directly inside options\.markdownDir/,
  );
  await refused({ exec: 'rm -rf ~' }, /options\.exec is not a Folio option/);
  await assert.rejects(backend.convert({ uri: 'https://example.com/x.pdf' }).result, /uri must be a file: URI/);
  await assert.rejects(
    backend.reparse({
      uri: sample(),
      version: 1,
      page: 1,
      regionId: 'r',
      bbox: { x0: 0, y0: 0, x1: 10, y1: 10 },
      cls: '<img onerror=x>' as never,
    }),
    /cls must be a region class/,
  );
  // A sound request still converts.
  const ok = await backend.convert({
    uri: sample(),
    pages: '1',
    options: { scale: 1, cacheDir: join(dir, 'cache', 'pages') },
  }).result;
  assert.deepEqual(ok.pagesDone, [1]);
});

test('a picture converted by the backend is linked in the Markdown and the link resolves', async () => {
  const md = join(dir, 'md');
  const run = backend.convert({
    uri: pathToFileURL(corpusPath('docling/pdf/amt_handbook_sample.pdf')).href,
    pages: '1',
    options: { markdownDir: md, assetsDir: join(md, 'amt.assets') },
  });
  const summary = await run.result;
  const links = [...summary.markdown.matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]);
  assert.ok(links.length >= 1, summary.markdown.slice(0, 500));
  for (const l of links) {
    assert.match(l, /^amt\.assets\//);
    assert.ok(existsSync(join(md, decodeURIComponent(l))), l);
  }
});

test('a document opened for reparse is closed after the idle time, and reopened on the next reparse', async () => {
  const params = {
    uri: sample(),
    version: 1,
    page: 1,
    regionId: 'r1',
    bbox: { x0: 50, y0: 50, x1: 400, y1: 200 },
    cls: 'text' as const,
  };
  await backend.reparse(params);
  const deadline = Date.now() + 10_000;
  while (!backend.logs.some((l) => l.includes('reparse: closed sample.pdf')) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 100));
  assert.ok(
    backend.logs.some((l) => l.includes('reparse: closed sample.pdf')),
    backend.logs.join('\n'),
  );
  const again = await backend.reparse({ ...params, version: 2 });
  assert.equal(again.version, 2);
});
