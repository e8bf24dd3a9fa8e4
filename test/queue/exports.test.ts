/**
 * Issue #22.1: `folio convert --queue` writes exactly what `folio convert` writes, in every
 * format and picture mode. A real Redis (with a password, as docs/scaling.md runs it) and a real
 * `folio worker` (password from FOLIO_REDIS_PASSWORD, one page per range job so every page crosses
 * a range edge); the same documents converted both ways, every output file and every picture
 * compared byte for byte. The one field that differs between any two runs, the page JSON's
 * `elapsedMs`, is the only thing set aside.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { tmpdir } from 'node:os';
import { repoRoot, corpusRoot } from '../helpers/corpus';
import { startRedis, type RedisHandle } from '../helpers/redisServer';
import { docChunkLinesErrors, doclingDocumentErrors } from '../export/doclingSchema';
import { exportProblem } from '../../server/convertCommand/exportCheck';
import type { ConvertSummary } from '../../common/protocol';

const cli = () => join(repoRoot(), 'dist', 'cli.js');
const PASSWORD = 'queue test pässword';

/** Pictures (2 pages) under a name with a space, tables under a non-ASCII name, page furniture over 2 pages. */
const DOCS: [string, string][] = [
  ['docling/pdf/picture_classification.pdf', 'pic class.pdf'],
  ['docling-src-rendered/docx/word_tables.docx.pdf', 'Tabelle café.pdf'],
  ['docling-src-rendered/docx/docx_page_header_footer_first_page.docx.pdf', 'furniture.pdf'],
];

function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [cli(), ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, ...env },
    });
    let stderr = '';
    c.stderr.on('data', (d) => (stderr += d));
    const t = setTimeout(() => process.kill(c.pid!, 'SIGKILL'), 240_000);
    c.on('exit', (code) => {
      clearTimeout(t);
      resolve({ code, stderr });
    });
  });
}

function files(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(dir, p));
    }
  };
  walk(dir);
  return out;
}

let redis: RedisHandle;
let dir: string;
let inputs: string[];
let worker: ChildProcess;
let workerLog = '';

before(async () => {
  redis = await startRedis(undefined, { password: PASSWORD });
  dir = mkdtempSync(join(tmpdir(), 'folio-queue-exports-'));
  mkdirSync(join(dir, 'in'));
  inputs = DOCS.map(([src, name]) => {
    copyFileSync(join(corpusRoot(), src), join(dir, 'in', name));
    return join(dir, 'in', name);
  });
  // The worker's URL has no password: it comes from the environment, kept out of the process list.
  worker = spawn(process.execPath, [cli(), 'worker', '--redis', `redis://127.0.0.1:${redis.port}`, '--threads', '1'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, FOLIO_REDIS_PASSWORD: PASSWORD },
  });
  worker.stderr!.on('data', (d) => (workerLog += d));
});

after(async () => {
  if (worker && worker.exitCode === null && worker.signalCode === null) process.kill(worker.pid!, 'SIGKILL');
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const VARIANTS: [format: string, images: string][] = [
  ['md', 'link'],
  ['doctags', 'link'],
  ['json', 'link'],
  ['docling', 'link'],
  ['chunks', 'link'],
  ['md', 'embed'],
  ['docling', 'embed'],
  ['chunks', 'embed'],
  ['md', 'none'],
  ['docling', 'none'],
];

test(
  'every format and picture mode: the queue writes the same files, byte for byte, as in-process',
  { timeout: 1_500_000 },
  async () => {
    for (const [format, images] of VARIANTS) {
      const common = ['--format', format, '--images', images, '--ocr', 'never', '-q'];
      const local = join(dir, 'local', `${format}-${images}`);
      const queued = join(dir, 'queue', `${format}-${images}`);
      const a = await run(['convert', ...common, '-o', local + '/', ...inputs]);
      assert.equal(a.code, 0, `in-process ${format}/${images}: ${a.stderr}`);
      const b = await run([
        'convert',
        '--queue',
        redis.url,
        '--range-pages',
        '1',
        ...common,
        '-o',
        queued + '/',
        ...inputs,
      ]);
      assert.equal(b.code, 0, `queue ${format}/${images}: ${b.stderr}\nworker: ${workerLog.slice(-2000)}`);

      const names = files(local);
      assert.deepEqual(files(queued), names, `${format}/${images}: the same files`);
      for (const name of names) {
        let x = readFileSync(join(local, name));
        let y = readFileSync(join(queued, name));
        if (format === 'json') {
          const t = (buf: Buffer) =>
            Buffer.from(buf.toString('utf8').replace(/\n {2}"elapsedMs": \d+,\n/, '\n  "elapsedMs": 0,\n'));
          x = t(x);
          y = t(y);
        }
        assert.ok(x.equals(y), `${format}/${images}: ${name} differs between in-process and queue`);
      }

      // Not two equal empties: the outputs hold the documents.
      const pics = names.filter((n) => n.endsWith('.png'));
      assert.ok(
        images === 'link' ? pics.length >= 2 : pics.length === 0,
        `${format}/${images}: picture files ${pics.join(', ')}`,
      );
      if (format === 'docling') {
        const doc = JSON.parse(readFileSync(join(queued, 'pic class.docling.json'), 'utf8'));
        assert.deepEqual(doclingDocumentErrors(doc), [], `${format}/${images}: a valid DoclingDocument`);
        assert.equal(Object.keys(doc.pages).length, 2);
        assert.ok(
          doc.texts.length > 5 && doc.pictures.length === 2,
          `texts ${doc.texts.length}, pictures ${doc.pictures.length}`,
        );
        const table = JSON.parse(readFileSync(join(queued, 'Tabelle café.docling.json'), 'utf8'));
        assert.ok(table.tables.length >= 1, 'the table survives the queue');
        if (images === 'embed') assert.match(JSON.stringify(doc.pictures), /data:image\/png;base64,/);
      }
      if (format === 'chunks') {
        const jsonl = readFileSync(join(queued, 'pic class.chunks.jsonl'), 'utf8');
        assert.ok(jsonl.trim().split('\n').length >= 2);
        assert.deepEqual(docChunkLinesErrors(jsonl), [], `${format}/${images}: valid docling-core DocChunks`);
        const doc = JSON.parse(readFileSync(join(queued, 'pic class.docling.json'), 'utf8'));
        assert.deepEqual(doclingDocumentErrors(doc), [], `${format}/${images}: the document beside them is valid`);
      }
      if (format === 'md' && images === 'embed')
        assert.match(readFileSync(join(queued, 'pic class.md'), 'utf8'), /!\[[^\]]*\]\(data:image\/png;base64,/);
      if (format === 'md' && images === 'link')
        assert.match(
          readFileSync(join(queued, 'pic class.md'), 'utf8'),
          /!\[[^\]]*\]\(pic%20class\.assets\/pic_class-p1-1\.png\)/,
        );
    }
  },
);

test('an export that lost the converted content is an error, never an empty file with exit 0', () => {
  const summary = {
    uri: '/x.pdf',
    pageCount: 2,
    pagesDone: [1, 2],
    cancelled: false,
    doctags: '<doctag><text><loc_1><loc_1><loc_9><loc_9>Hello</text></doctag>',
    markdown: 'Hello\n',
    pageErrors: [],
    warnings: [],
    engine: 'pipeline',
    elapsedMs: 0,
  } satisfies ConvertSummary;
  // What #22.1 wrote through the queue: a DoclingDocument without pages or texts, an empty chunks file.
  const emptyDoc = JSON.stringify({ schema_name: 'DoclingDocument', texts: [], tables: [], pictures: [], pages: {} });
  assert.match(
    exportProblem('docling', emptyDoc, summary) ?? '',
    /docling export of 2 converted page\(s\) came out empty/,
  );
  assert.match(exportProblem('chunks', '', summary) ?? '', /chunks export .* came out empty/);
  assert.match(exportProblem('md', '\n', summary) ?? '', /md export .* came out empty/);
  assert.match(exportProblem('json', JSON.stringify({ pages: [] }), summary) ?? '', /json export .* came out empty/);
  // A document whose pages hold nothing may export nothing; a full export passes.
  assert.equal(exportProblem('chunks', '', { ...summary, markdown: '', doctags: '<doctag></doctag>' }), undefined);
  assert.equal(exportProblem('chunks', '{"text":"Hello"}\n', summary), undefined);
  assert.equal(
    exportProblem(
      'docling',
      JSON.stringify({ texts: [{}], tables: [], pictures: [], pages: { 1: {}, 2: {} } }),
      summary,
    ),
    undefined,
  );
});
