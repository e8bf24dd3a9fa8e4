/** The records of what Folio wrote to `.docling.json` / `.chunks.jsonl` / `.doctags.txt` outputs (src/commands/exportRecords.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ExportRecords, MAX_RECORDS, type RecordStore } from '../../src/commands/exportRecords';
import { existingMarkdownDecision, sha256Hex } from '../../src/commands/markdownGuard';

/** A Memento kept in a Map (VS Code's own exists only inside the editor; the e2e test uses the real one). */
function memoryStore(): RecordStore & { data: Map<string, unknown> } {
  const data = new Map<string, unknown>();
  return {
    data,
    get: <T>(k: string) => data.get(k) as T | undefined,
    update: async (k, v) => void data.set(k, JSON.parse(JSON.stringify(v))),
  };
}

test('a record decides whether an existing output may be replaced, as the sidecar does for the .md', async () => {
  const records = new ExportRecords(memoryStore());
  const text = '{"name": "doc"}\n';
  await records.set('/w/doc.docling.json', { sha256: sha256Hex(text), pdfSha256: 'p1' });
  const decide = (diskText: string) =>
    existingMarkdownDecision({ diskText, dirty: false, writtenHash: records.get('/w/doc.docling.json')?.sha256 });
  assert.equal(decide(text), 'write', 'exactly what Folio wrote: replaced without asking');
  assert.equal(decide(text + 'edited'), 'ask', 'edited since: asked');
  assert.equal(
    existingMarkdownDecision({
      diskText: text,
      dirty: false,
      writtenHash: records.get('/w/other.docling.json')?.sha256,
    }),
    'ask',
    'no record: asked',
  );
  assert.equal(
    records.get('/w/doc.docling.json')?.pdfSha256,
    'p1',
    "the PDF hash, for the folder command's up-to-date skip",
  );
});

test('a malformed store counts as no record; the newest records are kept past the limit', async () => {
  const store = memoryStore();
  store.data.set('folio.exportRecords', { '/w/a.chunks.jsonl': { sha256: 42 } });
  const records = new ExportRecords(store);
  assert.equal(records.get('/w/a.chunks.jsonl'), undefined);
  for (let i = 0; i <= MAX_RECORDS; i++)
    await records.set(`/w/f${i}.chunks.jsonl`, { sha256: 'x', pdfSha256: 'y' }, 1000 + i);
  const kept = Object.keys(store.data.get('folio.exportRecords') as object);
  assert.equal(kept.length, MAX_RECORDS);
  assert.ok(records.get(`/w/f${MAX_RECORDS}.chunks.jsonl`), 'the newest kept');
  assert.equal(records.get('/w/f0.chunks.jsonl'), undefined, 'the oldest dropped');
});
