/**
 * Issue 33 item 5: one place in src/ builds `folio/convert` (src/convertClient.ts). The real
 * builder runs here against the `vscode` stand-in (test/helpers/vscodeFake.ts: Uri only is used):
 * the request each command asks for comes out of the user's settings, the limits are sent with
 * it (the backend no longer asks the client for them), a bad limit setting is named before
 * anything is sent, and the pictures folder is named by one rule (`assetsDirFor`), shortened
 * with fitFileName like the output's own name.
 */
// First: it answers require('vscode') for the modules imported after it.
import { FakeUri } from '../helpers/vscodeFake';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { conversionOptions, convertParams, limitsFromSettings } from '../../src/convertClient';
import { assetsDirFor } from '../../src/paths';
import { folioConfig as settings } from '../helpers/folioConfig';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/corpus';

const pdfUri = FakeUri.file('/ws/papers/notes.pdf') as unknown as vscode.Uri;
const SHARED = {
  scale: 1.5,
  ocr: 'never',
  keepFurniture: true,
  cacheDir: '/cache',
  engine: 'vlm',
  modelsDir: '/models',
  providers: ['cpu'],
  layoutPrior: 'on',
  speculation: 'page',
};

test("the Markdown command's request: settings, its own folders over them, password, tokens and the pushed limits", () => {
  const own = { renderImages: true, markdownDir: '/ws/papers', assetsDir: '/ws/papers/notes.assets' };
  const params = convertParams(
    settings(),
    '/cache',
    { pdfUri, password: 'pw', options: own },
    { workDoneToken: 'w', partialResultToken: 'p', pagePartials: true },
  );
  assert.deepEqual(params, {
    uri: 'file:///ws/papers/notes.pdf',
    password: 'pw',
    options: { ...SHARED, ...own },
    limits: { documentSeconds: 60, pageMemoryMb: 64, maxPages: 3, maxCells: 1000 },
    workDoneToken: 'w',
    partialResultToken: 'p',
    pagePartials: true,
  });
});

test('the export, folder and language-model tool requests: the same settings, their own options, no stray fields', () => {
  const exportParams = convertParams(settings(), '/cache', { pdfUri, options: { renderImages: false } });
  assert.deepEqual(exportParams, {
    uri: 'file:///ws/papers/notes.pdf',
    options: { ...SHARED, renderImages: false },
    limits: { documentSeconds: 60, pageMemoryMb: 64, maxPages: 3, maxCells: 1000 },
  });
  const tool = convertParams(settings({ remoteVlm: { url: 'http://127.0.0.1:8000/v1', model: 'm' } }), '/c', {
    pdfUri,
    pages: '1-2',
    options: { renderImages: false },
  });
  assert.equal(tool.pages, '1-2');
  assert.deepEqual(tool.options?.remoteVlm, { url: 'http://127.0.0.1:8000/v1', model: 'm' });
  assert.equal(tool.options?.cacheDir, '/c');
  // A setting changed reaches every command's request: the one builder reads it.
  assert.equal(convertParams(settings({ renderScale: 3 }), '/c', { pdfUri, options: {} }).options?.scale, 3);
  // folio.keepHiddenText (security round 4, N9) reaches the request only when on.
  assert.equal(convertParams(settings(), '/c', { pdfUri, options: {} }).options?.keepHiddenText, undefined);
  assert.equal(
    convertParams(settings({ keepHiddenText: true }), '/c', { pdfUri, options: {} }).options?.keepHiddenText,
    true,
  );
  // A relative folio.models.path means nothing to the backend: left out.
  assert.equal(
    convertParams(settings({ modelsDir: 'rel/models' }), '/c', { pdfUri, options: {} }).options?.modelsDir,
    undefined,
  );
});

test("the view's sharper pages: its options alone (pipeline, no OCR), the limits still sent", () => {
  const options = { renderImages: true, ocr: 'never' as const, engine: 'pipeline' as const, scale: 4, cacheDir: '/c' };
  const call = { pdfUri, pages: '2', options, shared: false };
  assert.deepEqual(conversionOptions(settings(), '/cache', call), options);
  assert.deepEqual(convertParams(settings(), '/cache', call).limits, {
    documentSeconds: 60,
    pageMemoryMb: 64,
    maxPages: 3,
    maxCells: 1000,
  });
});

test('folio.limits.*: pushed as set; a value out of range or not whole is an error naming the setting', () => {
  assert.deepEqual(limitsFromSettings({ documentSeconds: 0, pageMemoryMb: 16, maxPages: 1_000_000 }), {
    documentSeconds: 0,
    pageMemoryMb: 16,
    maxPages: 1_000_000,
  });
  assert.deepEqual(limitsFromSettings({ documentSeconds: undefined, pageMemoryMb: null, maxPages: 2 }), {
    maxPages: 2,
  });
  assert.throws(
    () => limitsFromSettings({ documentSeconds: 60, pageMemoryMb: 5, maxPages: 2 }),
    /folio\.limits\.pageMemoryMb must be a whole number from 16 to 65536, not 5/,
  );
  assert.throws(
    () => limitsFromSettings({ documentSeconds: 1.5, pageMemoryMb: 64, maxPages: 2 }),
    /folio\.limits\.documentSeconds must be a whole number from 0 to 604800, not 1\.5/,
  );
  assert.throws(
    () =>
      convertParams(settings({ limits: { documentSeconds: 60, pageMemoryMb: 64, maxPages: '9' } }), '/c', {
        pdfUri,
        options: {},
      }),
    /folio\.limits\.maxPages must be a whole number from 1 to 1000000, not "9"/,
  );
  // The cell limit of a workbook (issue 41), from folio.limits.maxCells.
  assert.deepEqual(
    limitsFromSettings({ documentSeconds: 60, pageMemoryMb: 64, maxPages: 3, maxCells: 500 }).maxCells,
    500,
  );
  assert.throws(
    () => limitsFromSettings({ documentSeconds: 60, pageMemoryMb: 64, maxPages: 3, maxCells: 0 }),
    /folio\.limits\.maxCells must be a whole number from 1 to 100000000, not 0/,
  );
});

test('assetsDirFor: <stem>.assets beside the output for every format; a long name is shortened to fit 255 bytes', () => {
  const at = (p: string) => assetsDirFor(FakeUri.file(p) as unknown as vscode.Uri).fsPath;
  assert.equal(at('/ws/out/notes.md'), '/ws/out/notes.assets');
  assert.equal(at('/ws/out/Notes.MD'), '/ws/out/Notes.assets');
  assert.equal(at('/ws/out/notes (2).docling.json'), '/ws/out/notes (2).assets');
  assert.equal(at('/ws/out/notes.chunks.jsonl'), '/ws/out/notes.assets');
  // A 252-byte stem: `<stem>.md` fits 255 bytes, `<stem>.assets` would not (convertFolder.ts
  // appended `.assets` as is, a name the file system refuses).
  const stem = 'é'.repeat(126);
  assert.equal(Buffer.byteLength(stem + '.md'), 255);
  const long = at(`/ws/out/${stem}.md`).split('/').pop()!;
  assert.ok(Buffer.byteLength(long) <= 255, `${Buffer.byteLength(long)} bytes`);
  assert.match(long, /^é+~[0-9a-f]{8}\.assets$/);
  assert.equal(at(`/ws/out/${stem}.md`), at(`/ws/other/../out/${stem}.md`));
});

test('folio.keepHiddenText is a machine setting: a workspace (an untrusted repository) cannot bring hidden text back', () => {
  const pkg = JSON.parse(readFileSync(join(repoRoot(), 'package.json'), 'utf8')) as {
    contributes: { configuration: { properties: Record<string, { scope?: string; default?: unknown }> } };
  };
  const s = pkg.contributes.configuration.properties['folio.keepHiddenText'];
  assert.ok(s, 'folio.keepHiddenText is contributed');
  assert.equal(s.scope, 'machine');
  assert.equal(s.default, false);
});
