/**
 * "Convert PDF to Markdown": converts through the backend under a cancellable progress
 * notification, appends each page to `<name>.md` as it arrives (so a cancel or a crash keeps
 * every page already done), and opens the Markdown beside.
 *
 * The user's text is never lost (markdownGuard.ts): an existing `.md` that is not exactly what
 * Folio last wrote is replaced only if the user says so (or kept beside a new `doc (2).md`), and
 * edits made during the conversion switch the writer to appending through the editor.
 */
import * as vscode from 'vscode';
import { randomUUID } from 'node:crypto';
import { lstatSync } from 'node:fs';
import { lstat, readFile } from 'node:fs/promises';
import { type ConvertSummary, parsePageProgress } from '../../common/protocol';
import { type FolioContext, OUTPUT_FORMATS, type OutputFormat } from '../context';
import type { ConversionEvents } from '../conversion';
import { conversionOptions, convert, type ConversionCall } from '../convertClient';
import { assetsDirFor, markdownUriFor } from '../paths';
import { addSecret } from '../logRedaction';
import { localPath } from '../localFiles';
import { readSidecar } from '../preview/sidecar';
import { existingMarkdownDecision, keepBothName } from './markdownGuard';
import { MarkdownWriter } from './markdownWriter';
import { chooseExportTarget, exportUriFor } from './exportFile';
import { convertToExport } from './convertToExport';
import { messageOf } from '../../common/errorKinds';
import { reactionTo } from '../errorReactions';

/**
 * The PDF the command was invoked on: explorer / editor-title argument, active tab, or a file
 * picker. Where it came from goes to the log: a conversion that "did not start" is then told
 * apart from a picker the user closed.
 */
async function targetPdf(arg: unknown, log: (line: string) => void): Promise<vscode.Uri | undefined> {
  if (arg instanceof vscode.Uri) return arg;
  const active = vscode.window.tabGroups.activeTabGroup.activeTab;
  const tab = active?.input as { uri?: vscode.Uri } | undefined;
  // A PDF, or a document born structured (issue 41: Word, PowerPoint, Excel, HTML, CSV).
  if (tab?.uri && /\.(pdf|docx|pptx|xlsx|html?|csv)$/i.test(tab.uri.path)) return tab.uri;
  log(`[info] Convert PDF: the active tab (${active ? active.label : 'none'}) is not a PDF; asking for one`);
  const picked = await vscode.window.showOpenDialog({
    canSelectMany: false,
    filters: { PDF: ['pdf'], 'Office and HTML': ['docx', 'pptx', 'xlsx', 'html', 'htm', 'csv'] },
    openLabel: 'Convert to Markdown',
  });
  if (!picked?.[0]) log('[info] Convert PDF: no PDF chosen');
  return picked?.[0];
}

const FORMAT_PICKS: Record<OutputFormat, { label: string; detail: string }> = {
  markdown: { label: 'Markdown', detail: '<name>.md, with the preview' },
  docling: { label: 'DoclingDocument (JSON)', detail: "<name>.docling.json, for tools that read Docling's output" },
  chunks: {
    label: 'Chunks (JSON Lines)',
    detail: '<name>.chunks.jsonl, retrieval chunks with heading paths, pages and boxes',
  },
  doctags: { label: 'DocTags', detail: '<name>.doctags.txt' },
};

/** "Convert PDF to…": the format for this conversion, the setting's first. */
async function pickFormat(current: OutputFormat): Promise<OutputFormat | undefined> {
  const items = [current, ...OUTPUT_FORMATS.filter((f) => f !== current)].map((f) => ({
    ...FORMAT_PICKS[f],
    format: f,
  }));
  const picked = await vscode.window.showQuickPick(items, {
    title: 'Folio: convert the PDF to',
    placeHolder: 'Output format (the default is the folio.outputFormat setting)',
  });
  return picked?.format;
}

/**
 * `folio.convertPdf` writes `folio.outputFormat`; `folio.convertPdfTo` (askFormat) asks first.
 * An optional second argument names the format (for other extensions and tests).
 */
export function convertPdfCommand(ctx: FolioContext, askFormat = false) {
  return async (arg?: unknown, formatArg?: unknown): Promise<ConvertSummary | undefined> => {
    const commandAt = Date.now();
    const pdfUri = await targetPdf(arg, (line) => ctx.output.appendLine(line));
    if (!pdfUri) return undefined;
    const format = OUTPUT_FORMATS.includes(formatArg as OutputFormat)
      ? (formatArg as OutputFormat)
      : askFormat
        ? await pickFormat(ctx.config.outputFormat)
        : ctx.config.outputFormat;
    if (!format) return undefined;
    const name = pdfUri.path.split('/').pop() ?? pdfUri.toString();
    // With the log lines of targetPdf and convertOnce, a conversion that "did not start" shows how
    // far it got (an e2e run once saw no toast and no line at all).
    ctx.output.appendLine(`[info] Convert PDF: ${name} to ${format}`);
    if (format !== 'markdown')
      return convertWithPassword(
        ctx,
        name,
        async (password, target) => convertToExport(ctx, pdfUri, target, format, password),
        () => chooseExportTarget(ctx.exportRecords, exportUriFor(pdfUri, ctx.config.outputDirectory, format), format),
      );
    return convertWithPassword(
      ctx,
      name,
      (password, mdUri) => convertOnce(ctx, pdfUri, mdUri, password, commandAt),
      async () => {
        const mdUri = await chooseTarget(ctx, markdownUriFor(pdfUri, ctx.config.outputDirectory));
        // The view opens now, before the backend is asked (or even started): VS Code's webview
        // start, seconds on a window's first view, then overlaps the backend's work on page 1.
        if (mdUri) ctx.conversions.emit('preparing', { pdfUri, mdUri, commandAt });
        return mdUri;
      },
      (mdUri, message) => ctx.conversions.emit('failed', { pdfUri, mdUri, message }),
    );
  };
}

/**
 * Chooses the target (errors shown), then converts, asking for a password when the PDF needs one.
 * `failed` hears every end without a summary once a target was chosen (the Markdown's view closes
 * or says the conversion stopped).
 */
async function convertWithPassword<T>(
  ctx: FolioContext,
  name: string,
  convert: (password: string | undefined, target: T) => Promise<ConvertSummary>,
  choose: () => Promise<T | undefined>,
  failed: (target: T, message: string) => void = () => undefined,
): Promise<ConvertSummary | undefined> {
  let target: T | undefined;
  try {
    target = await choose();
  } catch (e) {
    return showFailure(ctx, name, e);
  }
  if (target === undefined) return undefined;
  let password: string | undefined;
  for (let attempt = 0; attempt < 4; attempt++) {
    try {
      return await convert(password, target);
    } catch (e) {
      const reaction = reactionTo(e);
      if (reaction.do === 'ask-password') {
        password = await askPassword(name, reaction.prompt);
        if (password === undefined) {
          failed(target, 'no password given');
          return undefined;
        }
        continue;
      }
      failed(target, messageOf(e));
      return showFailure(ctx, name, e);
    }
  }
  failed(target, 'the password was refused');
  return undefined;
}

function askPassword(name: string, prompt: string): Thenable<string | undefined> {
  return vscode.window
    .showInputBox({
      title: `Folio: ${name} is password-protected`,
      prompt,
      password: true,
      ignoreFocusOut: true,
    })
    .then((pw) => {
      addSecret(pw); // never logged, even outside a JSON field (src/logRedaction.ts)
      return pw;
    });
}

/** A failed conversion, told as its kind says (src/errorReactions.ts); always logged. */
function showFailure(ctx: FolioContext, name: string, e: unknown): undefined {
  const message = messageOf(e);
  const reaction = reactionTo(e);
  ctx.output.appendLine(`[${reaction.do === 'show' ? reaction.severity : 'info'}] ${name}: ${message}`);
  if (reaction.do === 'show' && reaction.severity === 'warning')
    void vscode.window.showWarningMessage(`Folio could not convert ${name}: ${message}`);
  else if (reaction.do === 'show') void vscode.window.showErrorMessage(`Folio could not convert ${name}: ${message}`);
  return undefined;
}

/**
 * The `.md` to write: `mdUri` itself when nothing of the user's is there; otherwise what the user
 * chose (replace, keep both → a free name, cancel → undefined). Throws for a link or a non-file.
 */
async function chooseTarget(ctx: FolioContext, mdUri: vscode.Uri): Promise<vscode.Uri | undefined> {
  const path = localPath(mdUri);
  const st = await lstat(path).catch(() => undefined);
  if (st && !st.isFile())
    throw new Error(
      `${path} is ${st.isSymbolicLink() ? 'a symbolic link' : 'not a regular file'}; Folio does not write through it. Remove it or set folio.outputDirectory.`,
    );
  const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === mdUri.toString());
  const diskText = st ? await readFile(path, 'utf8') : undefined;
  const warn = (m: string) => ctx.output.appendLine(`[warning] ${m}`);
  const writtenHash = diskText !== undefined ? (await readSidecar(mdUri, warn))?.mdSha256 : undefined;
  if (existingMarkdownDecision({ diskText, dirty: doc?.isDirty ?? false, writtenHash }) === 'write') return mdUri;
  const name = mdUri.path.split('/').pop()!;
  ctx.output.appendLine(`[info] ${name} exists with text Folio did not write; asking before replacing it`);
  const replace = 'Replace';
  const keepBoth = 'Keep Both';
  const answer = await vscode.window.showWarningMessage(
    `${name} already exists and has text Folio did not write.`,
    {
      modal: true,
      detail: `Replace it with the new conversion, keep both (the new one goes to a new file), or cancel.`,
    },
    replace,
    keepBoth,
  );
  if (answer === replace) {
    if (doc?.isDirty) throw new Error(`${name} has unsaved changes; save or revert them, then convert again.`);
    return mdUri;
  }
  if (answer !== keepBoth) return undefined;
  const stem = name.replace(/\.md$/i, '');
  const dir = vscode.Uri.joinPath(mdUri, '..');
  const free = keepBothName(
    stem,
    '.md',
    (n) => lstatSync(vscode.Uri.joinPath(dir, n).fsPath, { throwIfNoEntry: false }) !== undefined,
  );
  return vscode.Uri.joinPath(dir, free);
}

/** The `.md`'s writer; edits made during the conversion switch it to the editor, and the user is told. */
function markdownWriter(ctx: FolioContext, mdUri: vscode.Uri): MarkdownWriter {
  const mdName = mdUri.path.split('/').pop();
  return new MarkdownWriter(mdUri, () => {
    ctx.output.appendLine(
      `[info] ${mdName} was edited during the conversion; the remaining pages are added in the editor (unsaved).`,
    );
    void vscode.window.showInformationMessage(
      `Folio: you edited ${mdName} during the conversion, so the remaining pages are added in the editor without saving; save it when the conversion ends.`,
    );
  });
}

async function convertOnce(
  ctx: FolioContext,
  pdfUri: vscode.Uri,
  mdUri: vscode.Uri,
  password: string | undefined,
  commandAt = Date.now(),
): Promise<ConvertSummary> {
  const config = ctx.config;
  const name = pdfUri.path.split('/').pop() ?? '';
  ctx.output.appendLine(`[info] Convert PDF: ${name} → ${mdUri.path.split('/').pop()}: waiting for the backend`);
  await ctx.client();
  const timing = { commandAt, backendAt: Date.now() };
  const call: ConversionCall = {
    pdfUri,
    password,
    options: {
      renderImages: true,
      markdownDir: vscode.Uri.joinPath(mdUri, '..').fsPath,
      assetsDir: assetsDirFor(mdUri).fsPath,
    },
  };
  const options = conversionOptions(config, ctx.cacheDir.fsPath, call);
  const writer = markdownWriter(ctx, mdUri);
  const conversionId = randomUUID();
  const emit: Emit = (event, arg) =>
    ctx.conversions.emit(event, { pdfUri, mdUri, ...arg } as Parameters<
      NonNullable<ConversionEvents[typeof event]>
    >[0]);

  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Folio: converting ${name}`, cancellable: true },
    async (progress, token) => {
      let pagesQueue: Promise<void> = Promise.resolve();
      let started = false;
      const begin = async () => {
        if (started) return;
        started = true;
        await writer.create();
        // The linked view (src/preview) lays out the PDF's pages and the `.md` side by side.
        emit('started', { options, conversionId, timing });
      };
      // Each event after `begin`, in arrival order (so a partial never overtakes its page).
      const inOrder = (then: () => void) => {
        pagesQueue = pagesQueue.then(async () => {
          await begin();
          then();
        });
      };
      try {
        const summary = await convert(
          ctx,
          call,
          token,
          {
            progress,
            // The PDF is open once the backend reports "page 0/N": the .md and the linked view open
            // then (not at page 1), so the view loads while page 1 converts and says how far it got.
            onWorkDone: (r) => {
              const pages = parsePageProgress(r.message);
              if (pages) inOrder(() => emit('progress', pages));
            },
            onPage: (page) => inOrder(() => emit('page', { page, mdOffset: writer.append(page.markdown) })),
            // A page the VLM is still writing: the preview opens on the first one (a remote page can
            // take many seconds) and shows it until the page itself arrives.
            onPartial: (partial) => inOrder(() => emit('partial', { conversionId, partial })),
            conversionId,
          },
          config,
        );
        await pagesQueue;
        if (!started) await writer.create();
        await writer.flush();
        emit('finished', { summary, writtenHash: writer.writtenHash });
        reportMarkdown(ctx, name, mdUri, summary, started);
        return summary;
      } catch (e) {
        // Keep what was converted: the pages already appended stay in the file.
        await pagesQueue.catch(() => undefined);
        await writer.flush().catch(() => undefined);
        throw e;
      }
    },
  );
}

/** A conversion event of this PDF and `.md`: the fields other than those two. */
type Emit = <K extends keyof ConversionEvents>(
  event: K,
  arg: Omit<Parameters<NonNullable<ConversionEvents[K]>>[0], 'pdfUri' | 'mdUri'>,
) => void;

/** The finished conversion told: logged, cancel and page failures shown, the `.md` opened if no view did. */
function reportMarkdown(
  ctx: FolioContext,
  name: string,
  mdUri: vscode.Uri,
  summary: ConvertSummary,
  viewOpened: boolean,
): void {
  const done = `${summary.pagesDone.length}/${summary.pageCount} pages`;
  ctx.output.appendLine(
    `[info] ${name} → ${mdUri.fsPath} (${done}${summary.provider ? `, provider ${summary.provider}` : ''})`,
  );
  if (summary.cancelled)
    void vscode.window.showInformationMessage(
      `Folio: conversion of ${name} cancelled; ${done} kept in ${mdUri.path.split('/').pop()}.`,
    );
  if (summary.pageErrors.length > 0) {
    void vscode.window.showWarningMessage(
      `Folio: ${summary.pageErrors.length} page(s) of ${name} could not be converted: ${summary.pageErrors[0]!.message}`,
    );
  }
  if (!viewOpened)
    void vscode.window.showTextDocument(mdUri, {
      viewColumn: vscode.ViewColumn.Beside,
      preserveFocus: true,
      preview: false,
    });
}
