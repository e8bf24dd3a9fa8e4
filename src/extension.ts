/** Folio's extension entry point: builds the context and registers the commands. */
import * as vscode from 'vscode';
import { FolioContext } from './context';
import { convertPdfCommand } from './commands/convertPdf';
import { downloadModelsCommand } from './commands/downloadModels';
import { registerPreview } from './preview';
import { registerLmTool } from './lmTool';
import { registerMcpProvider } from './mcpProvider';
import { convertFolderCommand } from './commands/convertFolder';

let ctx: FolioContext | undefined;

export function activate(extension: vscode.ExtensionContext): FolioContext {
  ctx = new FolioContext(extension);
  extension.subscriptions.push(ctx);
  ctx.push(
    vscode.commands.registerCommand('folio.convertPdf', convertPdfCommand(ctx)),
    vscode.commands.registerCommand('folio.convertPdfTo', convertPdfCommand(ctx, true)),
    // The same conversion under the title Office/HTML files show in their menus (package.json).
    vscode.commands.registerCommand('folio.convertDocument', convertPdfCommand(ctx)),
    vscode.commands.registerCommand('folio.convertDocumentTo', convertPdfCommand(ctx, true)),
    vscode.commands.registerCommand('folio.downloadModels', downloadModelsCommand(ctx)),
    vscode.commands.registerCommand('folio.convertFolder', convertFolderCommand(ctx)),
  );
  registerPreview(ctx);
  registerLmTool(ctx);
  registerMcpProvider(ctx);
  return ctx;
}

export async function deactivate(): Promise<void> {
  await ctx?.stop();
}
