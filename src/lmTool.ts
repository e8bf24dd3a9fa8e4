/**
 * The language-model tool `folio_convertPdf`: agent mode (or any extension, via
 * `vscode.lm.invokeTool`) converts a workspace PDF and reads its Markdown. The user confirms
 * each conversion (VS Code shows `confirmationMessages` in chat); the result is bounded so a
 * long PDF cannot flood the model's context (it says how to ask for fewer pages); the
 * cancellation token cancels the backend request. Nothing is written to disk.
 *
 * The tools API is VS Code 1.95+, newer than `engines.vscode` (1.91): it is looked up at run
 * time and typed here with the subset Folio uses, so older editors run the rest of Folio.
 */
import * as vscode from 'vscode';
import type { FolioContext } from './context';
import { convert } from './convertClient';
import { boundResult, resolveWorkspacePdf } from './lmToolCore';

export const LM_TOOL_NAME = 'folio_convertPdf';

export interface ConvertToolInput {
  path: string;
  pages?: string;
}

/** The part of the VS Code 1.95 tools API Folio uses (vscode.d.ts: lm.registerTool, LanguageModelTool). */
interface ToolsApi {
  lm: {
    registerTool<T>(
      name: string,
      tool: {
        prepareInvocation?(
          options: { input: T },
          token: vscode.CancellationToken,
        ): vscode.ProviderResult<{
          invocationMessage?: string;
          confirmationMessages?: { title: string; message: string | vscode.MarkdownString };
        }>;
        invoke(options: { input: T }, token: vscode.CancellationToken): vscode.ProviderResult<unknown>;
      },
    ): vscode.Disposable;
  };
  LanguageModelToolResult: new (content: unknown[]) => unknown;
  LanguageModelTextPart: new (value: string) => unknown;
}

function toolsApi(): ToolsApi | undefined {
  const api = vscode as unknown as Partial<ToolsApi> & { lm?: Partial<ToolsApi['lm']> };
  return typeof api.lm?.registerTool === 'function' && api.LanguageModelToolResult && api.LanguageModelTextPart
    ? (api as ToolsApi)
    : undefined;
}

export function registerLmTool(ctx: FolioContext): void {
  const api = toolsApi();
  if (!api) {
    ctx.output.appendLine(
      '[info] this VS Code has no language-model tools API (1.95+): folio_convertPdf is not registered',
    );
    return;
  }
  const folders = () =>
    (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  ctx.push(
    api.lm.registerTool<ConvertToolInput>(LM_TOOL_NAME, {
      prepareInvocation(options) {
        const pages = options.input.pages ? ` (pages ${options.input.pages})` : '';
        return {
          invocationMessage: `Converting ${options.input.path}${pages} with Folio`,
          confirmationMessages: {
            title: 'Convert PDF to Markdown',
            message: new vscode.MarkdownString(
              `Convert **${options.input.path.replace(/[\\`*_[\]<>]/g, '\\$&')}**${pages} to Markdown on this machine and give the text to the model?`,
            ),
          },
        };
      },
      async invoke(options, token) {
        const pdf = resolveWorkspacePdf(options.input.path, folders());
        const summary = await convert(
          ctx,
          { pdfUri: vscode.Uri.file(pdf), pages: options.input.pages, options: { renderImages: false } },
          token,
        );
        if (token.isCancellationRequested || summary.cancelled) {
          ctx.output.appendLine(
            `[info] ${LM_TOOL_NAME}: conversion of ${options.input.path} cancelled after ${summary.pagesDone.length} of ${summary.pageCount} pages`,
          );
          throw new vscode.CancellationError();
        }
        const notes = summary.pageErrors.map((e) => `[Folio: page ${e.page} could not be converted: ${e.message}]`);
        const text = boundResult(summary.markdown) + (notes.length > 0 ? '\n\n' + notes.join('\n') : '');
        ctx.output.appendLine(
          `[info] ${LM_TOOL_NAME}: ${options.input.path} → ${summary.pagesDone.length} pages, ${text.length} characters to the model`,
        );
        return new api.LanguageModelToolResult([new api.LanguageModelTextPart(text)]);
      },
    }),
  );
}
