/**
 * "Convert All PDFs in Folder" (explorer context menu on a folder): converts every PDF below the
 * folder under one cancellable progress notification. A PDF is skipped when its Markdown is up
 * to date: the sidecar records the SHA-256 of the PDF it came from (`pdfSha256`) and of
 * the Markdown as written (`mdSha256`); both must match. A Markdown file that exists but
 * is not the batch's own output (edited since, or written otherwise) is never overwritten: it is
 * kept and reported. A PDF with failed pages gets no Markdown (a batch leaves no half files).
 * Everything is summarised in the Folio output channel.
 *
 * With `folio.outputFormat` set to docling, chunks or doctags, each PDF gets that file instead
 * (exportFile.ts), under the same rules; its hashes are kept in the export records rather than a
 * sidecar (the other outputs have no preview).
 */
import * as vscode from 'vscode';
import type { PageResult } from '../../common/protocol';
import type { FolioContext } from '../context';
import { conversionOptions, convert, type ConversionCall } from '../convertClient';
import { assetsDirFor, markdownUriFor } from '../paths';
import { readSidecar, sidecarOptions, SIDECAR_VERSION, writeSidecar } from '../preview/sidecar';
import { writeLocalFile } from '../localFiles';
import { RegionMap } from '../preview/regionMap';
import { exportUriFor, pictureFolders, renderOutput, sha256Hex, writeExport, type ExportFormat } from './exportFile';
import { messageOf, NOTHING_CONVERTED } from '../../common/errorKinds';

export interface FolderSummary {
  converted: string[];
  skipped: string[];
  /** PDFs whose Markdown exists but is not this command's output (edited, or written otherwise): never overwritten. */
  kept: string[];
  failed: { file: string; reason: string }[];
  cancelled: boolean;
}

async function readOrUndefined(uri: vscode.Uri): Promise<Uint8Array | undefined> {
  try {
    return await vscode.workspace.fs.readFile(uri);
  } catch {
    return undefined;
  }
}

/** The hashes recorded in the sidecar (checked like every sidecar: a bad one counts as none). */
async function recordedSource(mdUri: vscode.Uri): Promise<{ pdfSha256?: string; mdSha256?: string } | undefined> {
  const sidecar = await readSidecar(mdUri, () => undefined);
  return sidecar ? { pdfSha256: sidecar.pdfSha256, mdSha256: sidecar.mdSha256 } : undefined;
}

export function convertFolderCommand(ctx: FolioContext) {
  return async (arg?: unknown): Promise<FolderSummary | undefined> => {
    let folder = arg instanceof vscode.Uri ? arg : undefined;
    if (!folder) {
      const picked = await vscode.window.showOpenDialog({
        canSelectFiles: false,
        canSelectFolders: true,
        openLabel: 'Convert PDFs',
      });
      folder = picked?.[0];
    }
    if (!folder) return undefined;
    const pdfs = (
      await vscode.workspace.findFiles(
        new vscode.RelativePattern(folder, '**/*.{pdf,PDF,docx,pptx,xlsx,html,htm}'),
        '**/node_modules/**',
      )
    ).sort((a, b) => a.path.localeCompare(b.path));
    const summary: FolderSummary = { converted: [], skipped: [], kept: [], failed: [], cancelled: false };
    const folderName = folder.path.split('/').pop() ?? folder.fsPath;
    if (pdfs.length === 0) {
      void vscode.window.showInformationMessage(`Folio: no PDF in ${folderName}.`);
      return summary;
    }
    const config = ctx.config;
    await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: `Folio: converting ${pdfs.length} PDFs in ${folderName}`,
        cancellable: true,
      },
      async (progress, token) => {
        for (let i = 0; i < pdfs.length; i++) {
          if (token.isCancellationRequested) break;
          const pdfUri = pdfs[i]!;
          const rel = vscode.workspace.asRelativePath(pdfUri, false);
          progress.report({ message: `${i + 1}/${pdfs.length}: ${rel}`, increment: i === 0 ? 0 : 100 / pdfs.length });
          try {
            const outcome = await convertOne(ctx, pdfUri, config, token);
            if (outcome === 'skipped') summary.skipped.push(rel);
            else if (outcome === 'kept') {
              summary.kept.push(rel);
              ctx.output.appendLine(
                `[info] convert folder: ${rel}: its ${config.outputFormat === 'markdown' ? 'Markdown' : config.outputFormat + ' output'} exists and was not written by this command (or was edited since); kept — convert it on its own to replace it`,
              );
            } else if (outcome === 'cancelled') break;
            else summary.converted.push(rel);
          } catch (e) {
            summary.failed.push({ file: rel, reason: messageOf(e).split('\n')[0]! });
          }
        }
        summary.cancelled = token.isCancellationRequested;
      },
    );
    const line = `${folderName}: ${summary.converted.length} converted, ${summary.skipped.length} up to date, ${summary.kept.length} kept, ${summary.failed.length} failed${summary.cancelled ? ', cancelled' : ''}`;
    ctx.output.appendLine(`[info] convert folder ${line}`);
    for (const f of summary.failed) ctx.output.appendLine(`[error] convert folder: ${f.file}: ${f.reason}`);
    if (summary.failed.length > 0) {
      void vscode.window.showWarningMessage(`Folio: ${line}. See the Folio output for the failures.`);
    } else void vscode.window.showInformationMessage(`Folio: ${line}.`);
    return summary;
  };
}

async function convertOne(
  ctx: FolioContext,
  pdfUri: vscode.Uri,
  config: FolioContext['config'],
  token: vscode.CancellationToken,
): Promise<'converted' | 'skipped' | 'kept' | 'cancelled'> {
  const pdfBytes = await vscode.workspace.fs.readFile(pdfUri);
  const pdfSha256 = sha256Hex(pdfBytes);
  if (config.outputFormat !== 'markdown') return exportOne(ctx, pdfUri, pdfSha256, config, config.outputFormat, token);
  const mdUri = markdownUriFor(pdfUri, config.outputDirectory);
  const existing = await readOrUndefined(mdUri);
  const recorded = await recordedSource(mdUri);
  if (existing) {
    const mdNow = sha256Hex(existing);
    if (recorded?.mdSha256 !== mdNow) return 'kept';
    if (recorded.pdfSha256 === pdfSha256) return 'skipped';
  }
  const call: ConversionCall = {
    pdfUri,
    options: {
      renderImages: true,
      markdownDir: vscode.Uri.joinPath(mdUri, '..').fsPath,
      assetsDir: assetsDirFor(mdUri).fsPath,
    },
  };
  const options = conversionOptions(config, ctx.cacheDir.fsPath, call);
  const summary = await convert(ctx, call, token, {}, config);
  if (summary.cancelled || token.isCancellationRequested) return 'cancelled';
  if (summary.pagesDone.length === 0) throw new Error(summary.pageErrors[0]?.message ?? NOTHING_CONVERTED);
  if (summary.pageErrors.length > 0)
    throw new Error(
      `${summary.pageErrors.length} page(s) failed (first: page ${summary.pageErrors[0]!.page}: ${summary.pageErrors[0]!.message}); the Markdown was not written`,
    );
  // The Markdown as the single-file command writes it; the sidecar maps its regions for the preview.
  const map = new RegionMap();
  let md = '';
  for (const page of (summary.pages ?? []) as PageResult[]) {
    if (page.markdown && md) md += '\n\n';
    map.addPage(page, md.length);
    md += page.markdown;
  }
  if (md) md += '\n';
  const mdBytes = Buffer.from(md, 'utf8');
  // Both writes through the extension's safe writer: never through a link, never outside the workspace.
  await writeLocalFile(mdUri, mdBytes);
  await writeSidecar(mdUri, {
    folio: SIDECAR_VERSION,
    pdf: pdfUri.toString(),
    options: sidecarOptions(options),
    pages: map.allPages(),
    mdSha256: sha256Hex(mdBytes),
    pdfSha256,
  });
  return 'converted';
}

/** One PDF to `folio.outputFormat`'s file: skipped when up to date, kept when not Folio's, else converted and written. */
async function exportOne(
  ctx: FolioContext,
  pdfUri: vscode.Uri,
  pdfSha256: string,
  config: FolioContext['config'],
  format: ExportFormat,
  token: vscode.CancellationToken,
): Promise<'converted' | 'skipped' | 'kept' | 'cancelled'> {
  const outUri = exportUriFor(pdfUri, config.outputDirectory, format);
  const existing = await readOrUndefined(outUri);
  const recorded = ctx.exportRecords.get(outUri.fsPath);
  if (existing) {
    if (recorded?.sha256 !== sha256Hex(existing)) return 'kept';
    if (recorded.pdfSha256 === pdfSha256) return 'skipped';
  }
  const pictures = await pictureFolders(outUri, format, config.images);
  try {
    const options = { renderImages: false, ...pictures.options };
    const summary = await convert(ctx, { pdfUri, options }, token, {}, config);
    if (summary.cancelled || token.isCancellationRequested) return 'cancelled';
    if (summary.pagesDone.length === 0) throw new Error(summary.pageErrors[0]?.message ?? NOTHING_CONVERTED);
    if (summary.pageErrors.length > 0)
      throw new Error(
        `${summary.pageErrors.length} page(s) failed (first: page ${summary.pageErrors[0]!.page}: ${summary.pageErrors[0]!.message}); the ${format} output was not written`,
      );
    const out = await renderOutput(
      await ctx.client(),
      format,
      pdfUri,
      summary,
      summary.pages ?? [],
      pictures,
      config.keepPageHeaders,
      config.images,
      token,
    );
    for (const w of out.warnings)
      ctx.output.appendLine(`[warning] convert folder: ${vscode.workspace.asRelativePath(pdfUri, false)}: ${w}`);
    // `seen` is what was there when checked above: a file changed since then is kept (written beside).
    await writeExport(
      ctx.exportRecords,
      { uri: outUri, seen: existing ? Buffer.from(existing).toString('utf8') : undefined },
      format,
      out.text,
      pdfSha256,
    );
    return 'converted';
  } catch (e) {
    // Cancelled while the backend rendered the file: a cancel, not a failure.
    if (token.isCancellationRequested) return 'cancelled';
    throw e;
  } finally {
    await pictures.cleanup().catch(() => undefined);
  }
}
