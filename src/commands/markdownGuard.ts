/**
 * The rules that keep the user's text safe when Folio (re)writes a `.md` (issue 10, item 3).
 * No `vscode` import: plain Node tests check them.
 *
 * - Before converting: an existing `.md` is replaced without asking only when it is empty or is
 *   exactly what Folio last wrote (its SHA-256 is kept in the sidecar); otherwise the user is
 *   asked: replace, keep both (the new one gets a free name `doc (2).md`), or cancel.
 * - While converting: pages go to the file on disk as long as nobody touched it. Once the file on
 *   disk differs from what Folio last wrote, or the open editor has unsaved changes, the
 *   remaining pages are appended through the editor's buffer instead (never saved by Folio), so
 *   no edit made during a conversion is overwritten.
 */

import { sha256Hex } from '../../common/sha256';
export { sha256Hex };

export interface ExistingMarkdown {
  /** The file's text on disk; undefined when there is no file. */
  diskText: string | undefined;
  /** The open editor has unsaved changes. */
  dirty: boolean;
  /** SHA-256 of the text Folio last wrote (from the sidecar), when known. */
  writtenHash: string | undefined;
}

/** 'write': nothing of the user's can be lost; 'ask': replace / keep both / cancel. */
export function existingMarkdownDecision(e: ExistingMarkdown): 'write' | 'ask' {
  if (e.dirty) return 'ask';
  if (e.diskText === undefined || e.diskText.trim() === '') return 'write';
  return e.writtenHash !== undefined && sha256Hex(e.diskText) === e.writtenHash ? 'write' : 'ask';
}

/** `stem (2)ext`, `stem (3)ext`, … : the first name `taken` says is free. */
export function keepBothName(stem: string, ext: string, taken: (name: string) => boolean): string {
  for (let n = 2; n < 10_000; n++) {
    const name = `${stem} (${n})${ext}`;
    if (!taken(name)) return name;
  }
  throw new Error(`no free name for ${stem}${ext}`);
}

/** The user changed the file since Folio's last write (on disk, or unsaved in the editor). */
export function touchedSinceWrite(e: { diskText: string | undefined; lastWritten: string; dirty: boolean }): boolean {
  return e.dirty || e.diskText !== e.lastWritten;
}

/** What to insert at the end of the editor's text so `chunk` starts as a new block. */
export function appendChunk(docText: string, chunk: string): string {
  const body = chunk.replace(/^\n+/, '');
  if (body === '') return '';
  if (docText === '') return body;
  const sep = docText.endsWith('\n\n') ? '' : docText.endsWith('\n') ? '\n' : '\n\n';
  return sep + body;
}
