import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listModels, pullModel, removeModel } from '../../server/modelStore/manager';
import { loadVlm } from '../../server/vlm/index';
import { tinyModels } from '../vlm/tinyModels';
import { filesOf, HUB_COMMIT, startHub, type HubServer } from './loopbackHub';

let fx: ReturnType<typeof tinyModels>;
let hub: HubServer;
const dirs: string[] = [];
/** The loopback hub speaks plain HTTP and Folio pins no checksums for its files: both said explicitly. */
const local = {
  get baseUrl() {
    return hub.url;
  },
  allowLoopbackHttp: true,
  trustHub: true,
};
const freshDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'folio-models-'));
  dirs.push(d);
  return d;
};

before(async () => {
  fx = tinyModels();
  hub = await startHub({
    'onnx-community/granite-docling-258M-ONNX': fx.dirs.page,
    'docling-project/docling-layout-heron-onnx': fx.dirs.heron,
  });
});
after(async () => {
  await hub?.close();
  fx?.cleanup();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test('pull installs the files of the hub layout, verified, and the VLM loads from the folder', async () => {
  const dir = freshDir();
  const progress: number[] = [];
  const path = await pullModel({
    repo: 'granite-docling',
    dtype: 'fp32',
    dir,
    ...local,
    onProgress: (p) => progress.push(p.overallReceived / p.overallTotal),
  });
  assert.equal(path, join(dir, 'granite-docling-258M-ONNX'));
  const want = filesOf(fx.dirs.page);
  assert.deepEqual(
    filesOf(path).filter((f) => f !== 'folio-model.json'),
    want,
  );
  for (const f of want) assert.deepEqual(readFileSync(join(path, f)), readFileSync(join(fx.dirs.page, f)), f);
  assert.ok(
    hub.log.some((l) => l.startsWith('GET /cdn/')),
    'ONNX files were fetched through the redirect',
  );
  assert.ok(
    hub.log.some((l) => l.includes(`/tree/${HUB_COMMIT}?cursor=4`)),
    'paginated listings were followed',
  );
  assert.equal(progress.at(-1), 1);
  await pullModel({ repo: 'heron', dir, ...local });
  const listed = listModels(dir);
  assert.deepEqual(
    listed.map((m) => [m.name, m.dtypes.join(',')]),
    [
      ['heron', ''],
      ['granite-docling', 'fp32'],
    ].sort((a, b) => (a[0] < b[0] ? 1 : -1)),
  );
  const vlm = await loadVlm({ modelsDir: dir, providers: ['cpu'], threads: 1 });
  try {
    assert.equal(vlm.provider, 'cpu');
  } finally {
    await vlm.dispose();
  }
  // Pulling again fetches nothing.
  const before = hub.log.length;
  await pullModel({ repo: 'granite-docling', dir, ...local });
  assert.ok(
    hub.log.slice(before).every((l) => l.includes('/api/models/')),
    hub.log.slice(before).join('\n'),
  );
  assert.ok(removeModel(dir, 'heron').endsWith('docling-layout-heron-onnx'));
  assert.deepEqual(
    listModels(dir).map((m) => m.name),
    ['granite-docling'],
  );
  assert.throws(() => removeModel(dir, 'heron'), /No installed model "heron"/);
});

test('an interrupted transfer fails clearly, then resumes with a Range request', async () => {
  const dir = freshDir();
  const file = 'onnx/decoder_model_merged.onnx_data';
  hub.interruptOnce(file, 100_000);
  await assert.rejects(
    pullModel({ repo: 'granite-docling', dir, ...local }),
    /interrupted .*run the download again to resume/,
  );
  assert.ok(!existsSync(join(dir, 'granite-docling-258M-ONNX')), 'nothing installed');
  const part = join(dir, '.staging', 'granite-docling-258M-ONNX', `${file}.part`);
  const kept = statSync(part).size;
  assert.ok(kept > 0 && kept <= 100_000, `partial file kept (${kept} bytes)`);
  const mark = hub.log.length;
  await pullModel({ repo: 'granite-docling', dir, ...local });
  assert.ok(
    hub.log.slice(mark).some((l) => l.includes(file) && l.includes(`range=bytes=${kept}-`)),
    'resumed from the partial file',
  );
  assert.deepEqual(readFileSync(join(dir, 'granite-docling-258M-ONNX', file)), readFileSync(join(fx.dirs.page, file)));
});

test('a corrupted file fails the SHA-256 check: clear error, nothing installed', async () => {
  const dir = freshDir();
  hub.corrupt('onnx/vision_encoder.onnx');
  // The knob stays on for this server; the tests after this one do not download that file.
  await assert.rejects(
    pullModel({ repo: 'granite-docling', dir, ...local }),
    /vision_encoder\.onnx is corrupt \(SHA-256 .*nothing was installed/,
  );
  assert.ok(!existsSync(join(dir, 'granite-docling-258M-ONNX')));
  assert.deepEqual(listModels(dir), []);
});

test('offline and unknown models give clear errors', async () => {
  const dir = freshDir();
  await assert.rejects(
    pullModel({ repo: 'granite-docling', dir, baseUrl: 'http://127.0.0.1:9', allowLoopbackHttp: true, trustHub: true }),
    /Cannot reach http:\/\/127\.0\.0\.1:9 .*pipeline engine keeps working/,
  );
  await assert.rejects(
    pullModel({ repo: 'granite-docling', dtype: 'q4', dir, ...local }),
    /no ONNX files for dtype "q4"/,
  );
  await assert.rejects(pullModel({ repo: 'someone/missing', dir, ...local }), /not found/);
});
