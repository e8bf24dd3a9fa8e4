/**
 * Issue 10: the extension's rules that run without VS Code (sidecar schema, the `.md` guard), the
 * manifest's trust declarations, and the cache's eviction and the idle map, on real files.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseSidecar, sidecarOptions, SIDECAR_LIMITS } from '../../src/preview/sidecarSchema';
import {
  appendChunk,
  existingMarkdownDecision,
  keepBothName,
  sha256Hex,
  touchedSinceWrite,
} from '../../src/commands/markdownGuard';
import { evictCache, readCachedPng } from '../../server/util/cache';
import { IdleMap } from '../../server/util/idleMap';
import { checkOptions } from '../../server/convert/checkParams';
import { repoRoot } from '../helpers/corpus';

const ws = '/home/u/project';
const md = `${ws}/docs/report.md`;
const good = () => ({
  folio: 1,
  pdf: pathToFileURL(`${ws}/docs/report.pdf`).href,
  options: { engine: 'pipeline', scale: 2, ocr: 'auto' },
  pages: [
    {
      page: 1,
      width: 612,
      height: 792,
      doctags: '<text>x</text>',
      mdOffset: 0,
      markdown: 'Hello <script>alert(1)</script>',
      ocr: false,
      warnings: [] as string[],
      regions: [
        {
          id: 'p1-r0',
          page: 1,
          cls: 'text',
          bbox: { x0: 1, y0: 2, x1: 3, y1: 4 },
          grid: [1, 2, 3, 4],
          order: 0,
          text: 'Hello <script>alert(1)</script>',
          range: { start: 0, end: 31 },
        },
      ],
    },
  ],
  mdSha256: sha256Hex('Hello\n'),
});
const check = (data: unknown) => parseSidecar(JSON.stringify(data), md, ws);
const problem = (data: unknown) => {
  const r = check(data);
  return 'problem' in r ? r.problem : undefined;
};

test('a sound sidecar is read; text stays text (the webview writes it with textContent)', () => {
  const r = check(good());
  assert.ok('sidecar' in r, JSON.stringify(r));
  assert.equal(r.sidecar.pages[0].markdown, 'Hello <script>alert(1)</script>');
  assert.equal(r.pdfPath, `${ws}/docs/report.pdf`);
  assert.equal(r.sidecar.mdSha256, sha256Hex('Hello\n'));
});

test('hostile sidecars are refused whole: paths out of the workspace, folders, script in fields, huge arrays', () => {
  const with_ = (f: (d: ReturnType<typeof good>) => void) => {
    const d = good();
    f(d);
    return d;
  };
  assert.match(problem(with_((d) => (d.pdf = `file://${ws}/docs/../../../etc/secret.pdf`)))!, /pdf must be inside/);
  assert.match(problem(with_((d) => (d.pdf = 'file:///etc/private.pdf')))!, /pdf must be inside/);
  assert.match(problem(with_((d) => (d.pdf = 'https://evil.example/x.pdf')))!, /pdf must be a file: URI/);
  assert.match(problem(with_((d) => (d.pdf = pathToFileURL(`${ws}/docs/notes.txt`).href)))!, /\.pdf file/);
  assert.match(
    problem(with_((d) => ((d.options as Record<string, unknown>).exec = 'x')))!,
    /options has an unknown field "exec"/,
  );
  assert.match(problem(with_((d) => ((d.options as Record<string, unknown>).engine = '<script>')))!, /options\.engine/);
  assert.match(
    problem(with_((d) => ((d.pages[0].regions[0] as Record<string, unknown>).cls = '<img src=x onerror=alert(1)>')))!,
    /cls must be one of/,
  );
  assert.match(problem(with_((d) => (d.pages[0].regions[0].id = '"><script>')))!, /id must be/);
  assert.match(problem(with_((d) => ((d as Record<string, unknown>).__proto__x = 1)))!, /unknown field/);
  assert.match(
    problem(with_((d) => (d.pages = Array.from({ length: SIDECAR_LIMITS.pages + 1 }, () => d.pages[0]))))!,
    /pages must be a list of at most/,
  );
  assert.match(
    problem(
      with_(
        (d) =>
          (d.pages[0].regions = Array.from({ length: SIDECAR_LIMITS.regionsPerPage + 1 }, () => d.pages[0].regions[0])),
      ),
    )!,
    /regions must be a list of at most/,
  );
  assert.match(
    problem(with_((d) => (d.pages[0].warnings = Array.from({ length: 1000 }, () => 'w'))))!,
    /warnings must be a list/,
  );
  assert.match(problem(with_((d) => (d.pages[0].regions[0].bbox.x0 = 1e308)))!, /bbox\.x0/);
  assert.match(problem(with_((d) => (d.mdSha256 = 'not a hash')))!, /mdSha256/);
  assert.match(problem('[]')!, /not a JSON object/);
  assert.match((parseSidecar('{"folio":', md, ws) as { problem: string }).problem, /not valid JSON/);
  assert.match(
    (parseSidecar(' '.repeat(SIDECAR_LIMITS.fileBytes + 1), md, ws) as { problem: string }).problem,
    /larger than/,
  );
});

test('folders never come from a sidecar: old folder fields are dropped, and never written back', () => {
  const d = good();
  Object.assign(d.options, {
    cacheDir: '/tmp/../../etc',
    assetsDir: '../..',
    modelsDir: '/attacker/models',
    markdownDir: '/',
    providers: ['cuda'],
    renderImages: true,
  });
  const r = check(d);
  assert.ok('sidecar' in r, JSON.stringify(r));
  assert.deepEqual(r.sidecar.options, { engine: 'pipeline', scale: 2, ocr: 'auto' });
  assert.deepEqual(
    sidecarOptions({ engine: 'vlm', cacheDir: '/x', modelsDir: '/m', assetsDir: '/a', keepFurniture: true }),
    { engine: 'vlm', keepFurniture: true },
  );
  // And the backend refuses such folders itself.
  assert.match(checkOptions({ cacheDir: '/tmp/../../etc' })!, /\.\./);
  assert.match(checkOptions({ assetsDir: '/a/b.assets' })!, /needs options\.markdownDir/);
  assert.equal(
    checkOptions({ markdownDir: '/a', assetsDir: '/a/b.assets', scale: 2, providers: ['cuda', 'cpu'] }),
    undefined,
  );
});

test('re-converting over an edited .md asks; over what Folio wrote (or nothing) it does not', () => {
  const dir = mkdtempSync(join(tmpdir(), 'folio-guard-'));
  try {
    const file = join(dir, 'report.md');
    const written = '# Report\n\nConverted text.\n';
    writeFileSync(file, written);
    const hash = sha256Hex(written);
    const disk = () => readFileSync(file, 'utf8');
    assert.equal(existingMarkdownDecision({ diskText: disk(), dirty: false, writtenHash: hash }), 'write');
    assert.equal(existingMarkdownDecision({ diskText: undefined, dirty: false, writtenHash: undefined }), 'write');
    assert.equal(existingMarkdownDecision({ diskText: '\n', dirty: false, writtenHash: undefined }), 'write');
    writeFileSync(file, written + '\nMy own notes.\n');
    assert.equal(existingMarkdownDecision({ diskText: disk(), dirty: false, writtenHash: hash }), 'ask');
    assert.equal(
      existingMarkdownDecision({ diskText: disk(), dirty: false, writtenHash: undefined }),
      'ask',
      'no record: not ours',
    );
    assert.equal(
      existingMarkdownDecision({ diskText: written, dirty: true, writtenHash: hash }),
      'ask',
      'unsaved edits in the editor',
    );
    // Keep both: the first free name.
    writeFileSync(join(dir, 'report (2).md'), 'x');
    const taken = (n: string) => readdirSync(dir).includes(n);
    assert.equal(keepBothName('report', '.md', taken), 'report (3).md');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('during a conversion, an edit (saved or not) switches the writer to appending in the editor', () => {
  assert.equal(touchedSinceWrite({ diskText: 'page 1\n', lastWritten: 'page 1\n', dirty: false }), false);
  assert.equal(touchedSinceWrite({ diskText: 'page 1\nmine\n', lastWritten: 'page 1\n', dirty: false }), true);
  assert.equal(touchedSinceWrite({ diskText: 'page 1\n', lastWritten: 'page 1\n', dirty: true }), true);
  assert.equal(
    touchedSinceWrite({ diskText: undefined, lastWritten: 'page 1\n', dirty: false }),
    true,
    'deleted meanwhile',
  );
  // Appended pages start as a new block after whatever the user left at the end.
  assert.equal(appendChunk('page 1\nmine', '\n\npage 2\n'), '\n\npage 2\n');
  assert.equal(appendChunk('page 1\n', '\n\npage 2\n'), '\npage 2\n');
  assert.equal(appendChunk('page 1\n\n', 'page 2\n'), 'page 2\n');
  assert.equal(appendChunk('', '\n\npage 2\n'), 'page 2\n');
});

test('manifest: no untrusted or virtual workspaces; model folder per machine, output folder per resource', () => {
  const pkg = JSON.parse(readFileSync(join(repoRoot(), 'package.json'), 'utf8'));
  assert.equal(pkg.capabilities?.untrustedWorkspaces?.supported, false);
  assert.equal(pkg.capabilities?.virtualWorkspaces?.supported ?? pkg.capabilities?.virtualWorkspaces, false);
  const props = pkg.contributes.configuration.properties;
  assert.equal(props['folio.models.path'].scope, 'machine');
  // Page images go to this server: a workspace must not choose it.
  assert.equal(props['folio.vlm.remoteUrl'].scope, 'machine');
  assert.equal(props['folio.outputDirectory'].scope, 'resource');
});

test("cache eviction removes the oldest of Folio's own entries only, down to 80 % of the cap", () => {
  const dir = mkdtempSync(join(tmpdir(), 'folio-evict-'));
  try {
    const png = Buffer.alloc(1000);
    const names = Array.from({ length: 10 }, (_, i) => `0123456789abcdef-p${i + 1}-s2.png`);
    names.forEach((n, i) => {
      writeFileSync(join(dir, n), png);
      utimesSync(join(dir, n), 1_000_000 + i, 1_000_000 + i);
    });
    writeFileSync(join(dir, 'notes.txt'), Buffer.alloc(50_000)); // not ours: never deleted, not counted
    mkdirSync(join(dir, 'sub'));
    assert.equal(evictCache(dir, 20_000), 0, 'under the cap: nothing removed');
    const removed = evictCache(dir, 5_000);
    assert.equal(removed, 6_000);
    const left = readdirSync(dir).sort();
    assert.deepEqual(left, [...names.slice(6)].concat(['notes.txt', 'sub']).sort(), 'the four newest stay');
    assert.equal(statSync(join(dir, 'notes.txt')).size, 50_000);
    // Not a PNG: not trusted as a cache hit.
    assert.equal(readCachedPng(join(dir, names[9])), undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('idle map: an entry in use is kept; idle ones are closed after the idle time', async () => {
  const closed: string[] = [];
  // Waits for b's close itself (the map's own idle timer), not for a guessed time.
  let bClosed!: () => void;
  const bIdle = new Promise<void>((r) => (bClosed = r));
  const m = new IdleMap<number>(50, (k) => {
    closed.push(k);
    if (k === 'b') bClosed();
  });
  const a = m.acquire('a', () => 1);
  const b = m.acquire('b', () => 2);
  const released = performance.now();
  b.release();
  assert.deepEqual(closed, [], 'not closed before its idle time');
  // The map's timers are unref'd: this one keeps the test's event loop alive meanwhile.
  const keepAlive = setTimeout(() => undefined, 60_000);
  await bIdle;
  clearTimeout(keepAlive);
  assert.ok(performance.now() - released >= 45, 'closed after its idle time, not before');
  assert.deepEqual(closed, ['b']);
  assert.equal(m.acquire('a', () => 9).value, 1, 'a was in use: still open');
  a.release();
  m.dispose();
  assert.deepEqual(closed.sort(), ['a', 'b']);
});
