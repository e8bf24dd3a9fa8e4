/**
 * Starts Folio's backend (dist/server.js) as a language-server-style child process over stdio.
 * If the backend dies, it is restarted once and the user is told; a second death stops it with
 * an error message, rather than restarting in a loop.
 */
import * as vscode from 'vscode';
import {
  CloseAction,
  ErrorAction,
  LanguageClient,
  TransportKind,
  type CloseHandlerResult,
  type ErrorHandlerResult,
  type LanguageClientOptions,
  type ServerOptions,
} from 'vscode-languageclient/node';
import { LogNotification } from '../server/protocol';

export function createClient(extension: vscode.ExtensionContext, output: vscode.LogOutputChannel): LanguageClient {
  const module = extension.asAbsolutePath('dist/server.js');
  const serverOptions: ServerOptions = {
    run: { module, transport: TransportKind.stdio },
    debug: { module, transport: TransportKind.stdio, options: { execArgv: ['--nolazy', '--inspect=6019'] } },
  };
  let restarts = 0;
  const clientOptions: LanguageClientOptions = {
    // Folio works on files it is asked about; it does not follow open documents.
    documentSelector: [],
    outputChannel: output,
    traceOutputChannel: output,
    errorHandler: {
      error: (): ErrorHandlerResult => ({ action: ErrorAction.Continue }),
      closed: (): CloseHandlerResult => {
        if (restarts === 0) {
          restarts++;
          void vscode.window.showWarningMessage('Folio: the conversion backend stopped unexpectedly and was restarted.');
          return { action: CloseAction.Restart, handled: true };
        }
        void vscode.window.showErrorMessage(
          'Folio: the conversion backend stopped again and was not restarted. See the "Folio" output; run "Developer: Reload Window" to try again.',
        );
        return { action: CloseAction.DoNotRestart, handled: true };
      },
    },
  };
  const client = new LanguageClient('folio', 'Folio', serverOptions, clientOptions);
  client.onNotification(LogNotification.type, ({ level, message }) => {
    output.appendLine(`[${level}] ${message}`);
  });
  return client;
}
