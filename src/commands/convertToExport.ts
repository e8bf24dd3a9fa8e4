/**
 * One PDF to a DoclingDocument, chunks or DocTags (`folio.outputFormat`, or the format picked in
 * "Convert PDF to…"): the same `folio/convert` as the Markdown (pages streamed, progress `page
 * i/N`, cancellable), then the file is rendered (exportFile.ts), written beside the PDF under the
 * `.md`'s overwrite rules, and opened. A cancelled conversion still writes the pages done, as the
 * Markdown keeps them.
 */
import * as vscode from 'vscode';
import { readFile } from 'node:fs/promises';
import type { ConvertSummary, PageResult } from '../../common/protocol';
import type { FolioContext } from '../context';
import { convert } from '../convertClient';
import { localPath } from '../localFiles';
import { pictureFolders, renderOutput, sha256Hex, writeExport, type ExportFormat } from './exportFile';
import { nothingConverted } from '../../common/errorKinds';

type Target = { uri: vscode.Uri; seen: string | undefined };

export async function convertToExport(
  ctx: FolioContext,
  pdfUri: vscode.Uri,
  target: Target,
  format: ExportFormat,
  password: string | undefined,
): Promise<ConvertSummary> {
  const config = ctx.config;
  const name = pdfUri.path.split('/').pop() ?? '';
  const pictures = await pictureFolders(target.uri, format, config.images);
  try {
    return await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Folio: converting ${name}`, cancellable: true },
      async (progress, token) => {
        const pages: PageResult[] = [];
        const summary = await convert(
          ctx,
          // Page images are for the preview, which only the Markdown has.
          { pdfUri, password, options: { renderImages: false, ...pictures.options } },
          token,
          { progress, onPage: (page) => void pages.push(page) },
          config,
        );
        const none = nothingConverted(summary);
        if (none) throw new Error(none.message);
        if (summary.cancelled && summary.pagesDone.length === 0) {
          void vscode.window.showInformationMessage(
            `Folio: conversion of ${name} cancelled before any page was done; nothing written.`,
          );
          return summary;
        }
        progress.report({ message: `writing ${target.uri.path.split('/').pop()}` });
        pages.sort((a, b) => a.page - b.page);
        // After a cancel the pages done are still written; their export is not cancelled with the conversion.
        const out = await renderOutput(
          await ctx.client(),
          format,
          pdfUri,
          summary,
          pages,
          pictures,
          config.keepPageHeaders,
          config.images,
          summary.cancelled ? undefined : token,
        );
        const pdfSha256 = sha256Hex(await readFile(localPath(pdfUri)));
        const written = await writeExport(ctx.exportRecords, target, format, out.text, pdfSha256);
        for (const w of out.warnings) ctx.output.appendLine(`[warning] ${name}: ${w}`);
        reportExport(ctx, name, format, target, written, summary);
        return summary;
      },
    );
  } finally {
    await pictures.cleanup().catch(() => undefined);
  }
}

/** The written output told: logged, a kept file, a cancel and page failures shown, the output opened. */
function reportExport(
  ctx: FolioContext,
  name: string,
  format: ExportFormat,
  target: Target,
  written: vscode.Uri,
  summary: ConvertSummary,
): void {
  const fileName = written.path.split('/').pop();
  const done = `${summary.pagesDone.length}/${summary.pageCount} pages`;
  ctx.output.appendLine(
    `[info] ${name} → ${written.fsPath} (${format}, ${done}${summary.provider ? `, provider ${summary.provider}` : ''})`,
  );
  if (written.toString() !== target.uri.toString()) {
    void vscode.window.showWarningMessage(
      `Folio: ${target.uri.path.split('/').pop()} changed during the conversion, so it was kept; the new output is ${fileName}.`,
    );
  }
  if (summary.cancelled)
    void vscode.window.showInformationMessage(`Folio: conversion of ${name} cancelled; ${done} kept in ${fileName}.`);
  if (summary.pageErrors.length > 0) {
    void vscode.window.showWarningMessage(
      `Folio: ${summary.pageErrors.length} page(s) of ${name} could not be converted: ${summary.pageErrors[0]!.message}`,
    );
  }
  void vscode.window.showTextDocument(written, {
    viewColumn: vscode.ViewColumn.Beside,
    preserveFocus: true,
    preview: false,
  });
}
