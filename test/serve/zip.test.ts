import { test } from 'node:test';
import assert from 'node:assert/strict';
import { unzipSync } from 'fflate';
import { isZipAssetName, resultsZip } from '../../server/serve/zip';
import type { TaskResult } from '../../server/serve/tasks';

test('zip asset names: pictures of any script are kept, paths that climb or hide are not', () => {
  for (const ok of ['café.assets/café-p1-1.png', 'report.assets/p1-2.png', 'Ωμέγα.assets/Ωμέγα-p2-1.png'])
    assert.ok(isZipAssetName(ok), ok);
  for (const bad of [
    'a.assets/..',
    'a.assets/.',
    '../a.assets/x.png',
    'a.assets/../x.png',
    'a.assets/sub/x.png',
    '/abs.assets/x.png',
    'a.assets\\x.png',
    'a/x.png',
  ])
    assert.ok(!isZipAssetName(bad), bad);
});

test('the result zip carries a picture whose name has accented letters (as in-process runs name it)', () => {
  const result: TaskResult = {
    name: 'café.pdf',
    pages: [],
    summary: { doctags: '' } as TaskResult['summary'],
    assets: new Map([
      ['café.assets/café-p1-1.png', Buffer.from([0x89, 0x50, 0x4e, 0x47])],
      ['café.assets/..', Buffer.from('x')],
    ]),
  };
  const names = Object.keys(
    unzipSync(
      new Uint8Array(
        resultsZip([
          {
            result,
            document: {
              filename: 'café.pdf',
              md_content: '![a](café.assets/café-p1-1.png)',
              json_content: null,
              html_content: null,
              text_content: null,
              doctags_content: null,
            },
          },
        ]),
      ),
    ),
  );
  assert.ok(names.includes('café.assets/café-p1-1.png'), names.join(', '));
  assert.ok(!names.some((n) => n.endsWith('/..')), names.join(', '));
});
