/** The language-model tool's path confinement and result bound (src/lmToolCore.ts), on real files. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { boundResult, LM_TOOL_MAX_CHARS, resolveWorkspacePdf } from '../../src/lmToolCore';

test('resolveWorkspacePdf: inside the workspace only, links resolved, PDFs only', () => {
  const root = mkdtempSync(join(tmpdir(), 'folio-lm-'));
  try {
    const ws = join(root, 'ws');
    mkdirSync(join(ws, 'docs'), { recursive: true });
    writeFileSync(join(ws, 'docs', 'a.pdf'), '%PDF-1.4');
    writeFileSync(join(root, 'outside.pdf'), '%PDF-1.4');
    writeFileSync(join(ws, 'notes.txt'), 'x');
    symlinkSync(join(root, 'outside.pdf'), join(ws, 'link.pdf'));
    assert.equal(resolveWorkspacePdf('docs/a.pdf', [ws]), join(ws, 'docs', 'a.pdf'));
    assert.equal(resolveWorkspacePdf(join(ws, 'docs', 'a.pdf'), [ws]), join(ws, 'docs', 'a.pdf'));
    assert.throws(() => resolveWorkspacePdf('../outside.pdf', [ws]), /outside the workspace folders/);
    assert.throws(() => resolveWorkspacePdf(join(root, 'outside.pdf'), [ws]), /outside the workspace folders/);
    assert.throws(() => resolveWorkspacePdf('link.pdf', [ws]), /outside the workspace folders/);
    assert.throws(() => resolveWorkspacePdf('notes.txt', [ws]), /not a PDF file/);
    assert.throws(() => resolveWorkspacePdf('missing.pdf', [ws]), /missing\.pdf was not found/);
    // Office and HTML documents (issue 41), as the explorer's entry takes them; not a legacy .doc.
    writeFileSync(join(ws, 'docs', 'b.docx'), 'PK');
    writeFileSync(join(ws, 'docs', 'c.xlsx'), 'PK');
    writeFileSync(join(ws, 'old.doc'), 'x');
    assert.equal(resolveWorkspacePdf('docs/b.docx', [ws]), join(ws, 'docs', 'b.docx'));
    assert.equal(resolveWorkspacePdf('docs/c.xlsx', [ws]), join(ws, 'docs', 'c.xlsx'));
    assert.throws(
      () => resolveWorkspacePdf('old.doc', [ws]),
      /old\.doc is not a PDF file or a document Folio converts/,
    );
    assert.throws(() => resolveWorkspacePdf('docs/a.pdf', []), /no folder is open/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('boundResult: short text unchanged; long text cut at a paragraph break with a note saying how to get the rest', () => {
  assert.equal(boundResult('short'), 'short');
  const para = 'word '.repeat(200).trim();
  const long = Array.from({ length: 100 }, (_, i) => `## ${i}\n\n${para}`).join('\n\n');
  const out = boundResult(long);
  assert.ok(out.length <= LM_TOOL_MAX_CHARS + 200, `bounded: ${out.length}`);
  const body = out.slice(0, out.indexOf('\n\n[Folio: output cut'));
  assert.ok(long.startsWith(body) && long[body.length] === '\n', 'cut at a paragraph break');
  assert.match(out, /output cut at \d+ of \d+ characters; call the tool again with "pages"/);
});
