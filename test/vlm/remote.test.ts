/**
 * Remote VLM over the OpenAI-compatible API against FakeOpenAiServer: the exact request body
 * (Docling's VLM-pipeline form), the streamed answer reaching the page result through the
 * orchestrator, the layout prior, region reparse with the class prompt on the crop, and per-page
 * fallback to the pipeline when the server is dead, slow or answers garbage.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import sharp from 'sharp';
import { repoRoot } from '../helpers/corpus';
import { freePort } from '../helpers/redisServer';
import { PageWorkerPool } from '../../server/worker/pool';
import { convertDocument } from '../../server/convert/convertDocument';
import { remoteVlmEngine } from '../../server/vlm/remoteEngine';
import { chatRequestBody } from '../../server/vlm/remoteRequest';
import type { ConvertOptions, PageResult } from '../../common/protocol';
import { FakeOpenAiServer } from './fakeOpenAiServer';

const SAMPLE = join(repoRoot(), 'test', 'fixtures', 'sample.pdf');
const ANSWER =
  '<doctag><section_header_level_1><loc_40><loc_30><loc_460><loc_50>Streamed from the fake server</section_header_level_1><text><loc_40><loc_60><loc_460><loc_90>Every token arrives as an SSE event.</text>';
let fake: FakeOpenAiServer;
let pool: PageWorkerPool;
let dir: string;
let png: string;

before(async () => {
  fake = new FakeOpenAiServer();
  await fake.start();
  fake.answer = ANSWER;
  pool = new PageWorkerPool({ size: 1, script: join(repoRoot(), 'dist', 'pageWorker.js') });
  dir = mkdtempSync(join(tmpdir(), 'folio-remote-'));
  png = join(dir, 'page.png');
  await sharp({ create: { width: 400, height: 500, channels: 3, background: '#ffffff' } })
    .png()
    .toFile(png);
});
after(async () => {
  await fake.stop();
  await pool.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const settings = (url: string, extra: object = {}) => ({
  url,
  model: 'ibm-granite/granite-docling-258M',
  apiKey: 'sk-test',
  ...extra,
});

test('the request is the chat-completions body Docling sends to vLLM, and the stream builds the page', async () => {
  fake.mode = 'replay';
  fake.requests.length = 0;
  const engine = remoteVlmEngine(settings(fake.url), 'off');
  const partial: string[] = [];
  const out = await engine.convertPage(
    { image: { path: png }, page: 1, width: 612, height: 792 },
    new AbortController().signal,
    (t) => partial.push(t),
  );
  assert.equal(fake.requests.length, 1);
  const req = fake.requests[0];
  assert.equal(req.url, '/v1/chat/completions');
  assert.equal(req.headers.authorization, 'Bearer sk-test');
  assert.deepEqual(req.body, {
    model: 'ibm-granite/granite-docling-258M',
    messages: [
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: `data:image/png;base64,${readFileSync(png).toString('base64')}` } },
          { type: 'text', text: 'Convert this page to docling.' },
        ],
      },
    ],
    temperature: 0,
    max_tokens: 4096,
    stop: ['</doctag>', '<|end_of_text|>'],
    skip_special_tokens: false,
    stream: true,
  });
  assert.deepEqual(
    req.body,
    JSON.parse(
      JSON.stringify(
        chatRequestBody(readFileSync(png), 'Convert this page to docling.', 'ibm-granite/granite-docling-258M'),
      ),
    ),
  );
  // Tokens arrived one chunk at a time, growing to the whole answer.
  assert.ok(partial.length >= 10, `${partial.length} partial updates`);
  for (let i = 1; i < partial.length; i++)
    assert.ok(partial[i].startsWith(partial[i - 1]) && partial[i].length > partial[i - 1].length);
  assert.equal(partial.at(-1), ANSWER);
  assert.equal(out.doctags, ANSWER.replace('<doctag>', ''));
});

test('the layout prior goes after the instruction; a region goes as its crop with the class prompt', async () => {
  fake.mode = 'replay';
  fake.requests.length = 0;
  const engine = remoteVlmEngine(settings(fake.url), 'on');
  await engine.convertPage(
    {
      image: { path: png },
      page: 1,
      width: 612,
      height: 792,
      priors: [{ cls: 'text', text: 'x', grid: [10, 10, 200, 40], bbox: { x0: 12, y0: 15, x1: 245, y1: 63 } }],
    },
    new AbortController().signal,
  );
  assert.match(
    fake.requests[0].body.messages[0].content[1].text,
    /^Convert this page to docling\.<layout><text><loc_10><loc_10><loc_200><loc_40><\/text><\/layout>$/,
  );
  fake.answer = '<otsl><fcel>a<fcel>b<nl></otsl>';
  try {
    const r = await engine.parseRegion(
      { image: { path: png }, page: 1, width: 612, height: 792 },
      { x0: 100, y0: 100, x1: 400, y1: 300 },
      'table',
      new AbortController().signal,
    );
    const body = fake.requests[1].body;
    assert.equal(body.messages[0].content[1].text, 'Convert table to OTSL.');
    const crop = Buffer.from(body.messages[0].content[0].image_url.url.split(',')[1], 'base64');
    const meta = await sharp(crop).metadata();
    assert.deepEqual(
      [meta.width, meta.height],
      [
        Math.ceil((400 * 400) / 612) - Math.floor((100 * 400) / 612),
        Math.ceil((300 * 500) / 792) - Math.floor((100 * 500) / 792),
      ],
    );
    assert.match(r.doctags, /^<otsl>.*<fcel>a<fcel>b<nl>.*<\/otsl>$/s);
  } finally {
    fake.answer = ANSWER;
  }
});

async function convertWith(remote: ConvertOptions['remoteVlm']): Promise<PageResult[]> {
  const pages: PageResult[] = [];
  await convertDocument(
    pool,
    {
      uri: SAMPLE,
      pages: '1',
      options: { engine: 'vlm', ocr: 'never', remoteVlm: remote, layoutPrior: 'off', cacheDir: dir },
    },
    { page: (p) => pages.push(p) },
  );
  return pages;
}

test('through the orchestrator the streamed answer is the page result', { timeout: 120_000 }, async () => {
  fake.mode = 'replay';
  const [p] = await convertWith(settings(fake.url));
  assert.equal(p.engine, 'vlm');
  assert.match(p.markdown, /^## Streamed from the fake server\n\nEvery token arrives as an SSE event\.$/);
  assert.deepEqual(p.warnings, []);
});

test(
  'a dead, slow or garbage server makes the page fall back to the pipeline with a warning',
  { timeout: 180_000 },
  async () => {
    const dead = `http://127.0.0.1:${await freePort()}/v1`;
    const cases: [string, ConvertOptions['remoteVlm'], () => void, RegExp][] = [
      ['dead', settings(dead, { attempts: 2 }), () => undefined, /cannot reach the VLM server \(ECONNREFUSED\)/],
      [
        'slow',
        settings(fake.url, { timeoutMs: 500, attempts: 1 }),
        () => (fake.mode = 'slow'),
        /no answer within 0\.5 s/,
      ],
      ['garbage', settings(fake.url, { attempts: 2 }), () => (fake.mode = 'garbage'), /not JSON/],
      ['500', settings(fake.url, { attempts: 2 }), () => (fake.mode = 'error500'), /HTTP 500: .*engine crashed/],
    ];
    for (const [name, s, arrange, re] of cases) {
      arrange();
      const [p] = await convertWith(s);
      assert.equal(p.engine, 'pipeline', name);
      assert.ok(p.markdown.length > 50, `${name}: the pipeline's page`);
      assert.ok(
        p.warnings.some((w) => /VLM failed/.test(w) && re.test(w)),
        `${name}: ${JSON.stringify(p.warnings)}`,
      );
    }
    fake.mode = 'replay';
  },
);
