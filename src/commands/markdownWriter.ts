/**
 * Appends pages to the `.md` as they arrive (so a cancel or a crash keeps every page already
 * done). Pages are joined with a blank line, so region offsets computed here match each page's
 * own Markdown (the backend's `joinPages`, used for the CLI's and the service's whole-document
 * Markdown, also mends a paragraph or a table broken by a page break; a streamed file keeps the
 * pages apart). Writes are coalesced: at most one write is in flight, and
 * pages that arrive meanwhile go out together in the next one.
 *
 * Disk writes go through writeLocalFile (no link followed, temp file + rename). Before each one
 * the writer checks that the user has not touched the file (markdownGuard.touchedSinceWrite);
 * once they have, the rest is appended through the editor's buffer and left for them to save.
 */
import * as vscode from 'vscode';
import { readFile } from 'node:fs/promises';
import { localPath, writeLocalFile } from '../localFiles';
import { appendChunk, sha256Hex, touchedSinceWrite } from './markdownGuard';

export class MarkdownWriter {
  private text = '';
  /** The text Folio last put on disk. */
  private lastWritten = '';
  /** How much of `text` has reached the editor's buffer (buffer mode). */
  private inBuffer = 0;
  private dirty = false;
  private writing: Promise<void> | undefined;
  private failure: unknown;
  /** True once the user edited the file during the conversion. */
  buffered = false;

  constructor(
    readonly uri: vscode.Uri,
    private readonly onBuffered: () => void,
  ) {}

  /** SHA-256 of what Folio last wrote to disk (for the sidecar). */
  get writtenHash(): string {
    return sha256Hex(this.lastWritten);
  }

  async create(): Promise<void> {
    this.text = '';
    await writeLocalFile(this.uri, '');
    this.lastWritten = '';
  }

  /** Appends a page; returns where its Markdown starts in the file's text (an estimate once buffered; the preview re-anchors by content). */
  append(markdown: string): number {
    if (markdown.length === 0) return this.text.length;
    if (this.text.length > 0) this.text = this.text.replace(/\n$/, '') + '\n\n';
    let offset = this.text.length;
    if (this.buffered) {
      const doc = this.document();
      if (doc) offset = doc.getText().length + appendChunk(doc.getText(), 'x').length - 1;
    }
    this.text += markdown + '\n';
    this.dirty = true;
    this.schedule();
    return offset;
  }

  /** Resolves when everything appended so far is on disk (or in the editor's buffer). */
  async flush(): Promise<void> {
    while (this.writing || this.dirty) {
      this.schedule();
      await this.writing;
    }
    if (this.failure) throw this.failure;
  }

  private document(): vscode.TextDocument | undefined {
    return vscode.workspace.textDocuments.find((d) => d.uri.toString() === this.uri.toString());
  }

  private schedule(): void {
    if (this.writing || !this.dirty) return;
    this.dirty = false;
    this.writing = this.writeOnce().then(
      () => {
        this.writing = undefined;
        this.schedule();
      },
      (e: unknown) => {
        // Reported by flush(); later pages are still kept in memory and retried.
        this.failure = e;
        this.writing = undefined;
      },
    );
  }

  private async writeOnce(): Promise<void> {
    const text = this.text;
    if (!this.buffered) {
      const diskText = await readFile(localPath(this.uri), 'utf8').catch(() => undefined);
      if (touchedSinceWrite({ diskText, lastWritten: this.lastWritten, dirty: this.document()?.isDirty ?? false })) {
        this.buffered = true;
        // The editor holds the user's text (opened from disk if it was not open).
        const doc = await vscode.workspace.openTextDocument(this.uri);
        // Saved from outside the editor: give VS Code a moment to reload the buffer from disk. If
        // it does not, VS Code's own save conflict check (disk newer than buffer) still protects it.
        for (let i = 0; i < 30 && !doc.isDirty && diskText !== undefined && doc.getText() !== diskText; i++)
          await new Promise((r) => setTimeout(r, 100));
        this.inBuffer = this.lastWritten.length;
        this.onBuffered();
      } else {
        await writeLocalFile(this.uri, text);
        this.lastWritten = text;
        return;
      }
    }
    const chunk = text.slice(this.inBuffer);
    if (!chunk) return;
    const doc = await vscode.workspace.openTextDocument(this.uri);
    const insert = appendChunk(doc.getText(), chunk);
    if (insert) {
      const edit = new vscode.WorkspaceEdit();
      edit.insert(this.uri, doc.positionAt(doc.getText().length), insert);
      if (!(await vscode.workspace.applyEdit(edit)))
        throw new Error(`VS Code refused to add pages to ${this.uri.fsPath} (read-only?)`);
    }
    this.inBuffer = text.length;
  }
}
