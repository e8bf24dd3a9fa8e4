/**
 * "Convert PDF to Markdown": converts through the backend under a cancellable progress
 * notification, appends each page to `<name>.md` as it arrives (so a cancel or a crash keeps
 * every page already done), and opens the Markdown beside.
 */
import * as vscode from 'vscode';
import { randomUUID } from 'node:crypto';
import { WorkDoneProgress, type WorkDoneProgressReport } from 'vscode-languageclient/node';
import {
  ConvertRequest,
  FolioErrorCodes,
  type ConvertOptions,
  type ConvertParams,
  type ConvertSummary,
  type PageResult,
} from '../../server/protocol';
import type { FolioContext } from '../context';
import { markdownUriFor } from '../paths';

/** The PDF the command was invoked on: explorer / editor-title argument, active tab, or a file picker. */
async function targetPdf(arg: unknown): Promise<vscode.Uri | undefined> {
  if (arg instanceof vscode.Uri) return arg;
  const tab = vscode.window.tabGroups.activeTabGroup.activeTab?.input as { uri?: vscode.Uri } | undefined;
  if (tab?.uri && /\.pdf$/i.test(tab.uri.path)) return tab.uri;
  const picked = await vscode.window.showOpenDialog({ canSelectMany: false, filters: { PDF: ['pdf'] }, openLabel: 'Convert to Markdown' });
  return picked?.[0];
}

function errorCode(e: unknown): number | undefined {
  const code = (e as { code?: unknown })?.code;
  return typeof code === 'number' ? code : undefined;
}

export function convertPdfCommand(ctx: FolioContext) {
  return async (arg?: unknown): Promise<ConvertSummary | undefined> => {
    const pdfUri = await targetPdf(arg);
    if (!pdfUri) return undefined;
    const name = pdfUri.path.split('/').pop() ?? pdfUri.toString();
    let password: string | undefined;
    for (let attempt = 0; attempt < 4; attempt++) {
      try {
        return await convertOnce(ctx, pdfUri, password);
      } catch (e) {
        const code = errorCode(e);
        if (code === FolioErrorCodes.PasswordRequired || code === FolioErrorCodes.PasswordIncorrect) {
          password = await vscode.window.showInputBox({
            title: `Folio: ${name} is password-protected`,
            prompt: code === FolioErrorCodes.PasswordIncorrect ? 'That password is not correct. Try again.' : 'Enter the PDF password',
            password: true,
            ignoreFocusOut: true,
          });
          if (password === undefined) return undefined;
          continue;
        }
        const message = e instanceof Error ? e.message : String(e);
        ctx.output.appendLine(`[error] ${name}: ${message}`);
        void vscode.window.showErrorMessage(`Folio could not convert ${name}: ${message}`);
        return undefined;
      }
    }
    return undefined;
  };
}

async function convertOnce(ctx: FolioContext, pdfUri: vscode.Uri, password: string | undefined): Promise<ConvertSummary> {
  const config = ctx.config;
  const mdUri = markdownUriFor(pdfUri, config.outputDirectory);
  const name = pdfUri.path.split('/').pop() ?? '';
  const client = await ctx.client();
  const mdDir = vscode.Uri.joinPath(mdUri, '..');
  const options: ConvertOptions = {
    renderImages: true,
    scale: config.renderScale,
    ocr: config.ocr,
    keepFurniture: config.keepPageHeaders,
    cacheDir: ctx.cacheDir.fsPath,
    engine: config.engine,
    modelsDir: config.modelsDir,
    providers: config.providers,
    layoutPrior: config.layoutPrior,
    markdownDir: mdDir.fsPath,
    assetsDir: vscode.Uri.joinPath(mdDir, mdUri.path.split('/').pop()!.replace(/\.md$/i, '') + '.assets').fsPath,
  };
  const writer = new MarkdownWriter(mdUri);

  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Folio: converting ${name}`, cancellable: true },
    async (progress, token) => {
      const workDoneToken = randomUUID();
      const partialResultToken = randomUUID();
      let lastPercent = 0;
      const subs = [
        client.onProgress(WorkDoneProgress.type, workDoneToken, (v) => {
          if (v.kind !== 'report') return;
          const r = v as WorkDoneProgressReport;
          const pct = r.percentage ?? lastPercent;
          progress.report({ message: r.message, increment: pct - lastPercent });
          lastPercent = pct;
        }),
        client.onProgress(ConvertRequest.partialResult, partialResultToken, (page: PageResult) => {
          pagesQueue = pagesQueue.then(async () => {
            if (!started) {
              started = true;
              await writer.create();
              ctx.conversions.emit('started', { pdfUri, mdUri, options });
              void vscode.window.showTextDocument(mdUri, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true, preview: false });
            }
            const mdOffset = writer.append(page.markdown);
            ctx.conversions.emit('page', { pdfUri, mdUri, page, mdOffset });
          });
        }),
      ];
      let started = false;
      let pagesQueue: Promise<void> = Promise.resolve();
      try {
        const params: ConvertParams = { uri: pdfUri.toString(), password, options, workDoneToken, partialResultToken };
        const summary = await client.sendRequest(ConvertRequest.type, params, token);
        await pagesQueue;
        if (!started) await writer.create();
        await writer.flush();
        ctx.conversions.emit('finished', { pdfUri, mdUri, summary });
        const done = `${summary.pagesDone.length}/${summary.pageCount} pages`;
        ctx.output.appendLine(`[info] ${name} → ${mdUri.fsPath} (${done}${summary.provider ? `, provider ${summary.provider}` : ''})`);
        if (summary.cancelled) void vscode.window.showInformationMessage(`Folio: conversion of ${name} cancelled; ${done} kept in ${mdUri.path.split('/').pop()}.`);
        if (summary.pageErrors.length > 0) {
          void vscode.window.showWarningMessage(`Folio: ${summary.pageErrors.length} page(s) of ${name} could not be converted: ${summary.pageErrors[0].message}`);
        }
        if (!started) void vscode.window.showTextDocument(mdUri, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true, preview: false });
        return summary;
      } catch (e) {
        // Keep what was converted: the pages already appended stay in the file.
        await pagesQueue.catch(() => undefined);
        await writer.flush().catch(() => undefined);
        throw e;
      } finally {
        for (const s of subs) s.dispose();
      }
    },
  );
}

/**
 * Appends pages to the .md file on disk as they arrive. Pages are joined with a blank line,
 * exactly as the backend's `joinPages` does, so region offsets computed here match. Writes are
 * coalesced: at most one write is in flight, and pages that arrive meanwhile go out together in
 * the next one, so a fast stream of pages never queues up behind the disk.
 */
class MarkdownWriter {
  private text = '';
  private dirty = false;
  private writing: Promise<void> | undefined;
  private failure: unknown;

  constructor(readonly uri: vscode.Uri) {}

  async create(): Promise<void> {
    this.text = '';
    await vscode.workspace.fs.writeFile(this.uri, new Uint8Array());
  }

  /** Appends a page; returns where its Markdown starts in the file's text. */
  append(markdown: string): number {
    if (markdown.length === 0) return this.text.length;
    if (this.text.length > 0) this.text = this.text.replace(/\n$/, '') + '\n\n';
    const offset = this.text.length;
    this.text += markdown + '\n';
    this.dirty = true;
    this.schedule();
    return offset;
  }

  /** Resolves when everything appended so far is on disk. */
  async flush(): Promise<void> {
    while (this.writing || this.dirty) {
      this.schedule();
      await this.writing;
    }
    if (this.failure) throw this.failure;
  }

  private schedule(): void {
    if (this.writing || !this.dirty) return;
    this.dirty = false;
    const text = this.text;
    this.writing = Promise.resolve(vscode.workspace.fs.writeFile(this.uri, Buffer.from(text, 'utf8'))).then(
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
}
