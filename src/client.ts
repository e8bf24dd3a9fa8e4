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
import { LogNotification, type PagePartialParams } from '../common/protocol';
import { redactingLog } from './logRedaction';

/**
 * Listeners of `folio/pagePartial` by request (partial-result token). The client keeps one
 * handler per method, so conversions running side by side share it and are told apart here. One
 * router per context (FolioContext.pagePartials), fed by the handler the context registers on its
 * client and disposes with it.
 */
export class PagePartialRouter {
  private readonly listeners = new Map<string | number, (p: PagePartialParams) => void>();

  /** Follows the partial pages of one `folio/convert` request until disposed. */
  follow(partialResultToken: string | number, listener: (p: PagePartialParams) => void): vscode.Disposable {
    this.listeners.set(partialResultToken, listener);
    return new vscode.Disposable(() => {
      if (this.listeners.get(partialResultToken) === listener) this.listeners.delete(partialResultToken);
    });
  }

  dispatch(p: PagePartialParams): void {
    this.listeners.get(p.partialResultToken)?.(p);
  }
}

export function createClient(extension: vscode.ExtensionContext, output: vscode.LogOutputChannel): LanguageClient {
  const module = extension.asAbsolutePath('dist/server.js');
  const serverOptions: ServerOptions = {
    run: { module, transport: TransportKind.stdio },
    debug: { module, transport: TransportKind.stdio, options: { execArgv: ['--nolazy', '--inspect=6019'] } },
  };
  let restarts = 0;
  // The client's own log and its JSON-RPC trace (`folio.trace.server`: "verbose" writes every
  // request's parameters, the PDF password and remote VLM key among them) go through redaction.
  const logged = redactingLog(output);
  const clientOptions: LanguageClientOptions = {
    // Folio works on files it is asked about; it does not follow open documents.
    documentSelector: [],
    outputChannel: logged,
    traceOutputChannel: logged,
    errorHandler: {
      error: (): ErrorHandlerResult => ({ action: ErrorAction.Continue }),
      closed: (): CloseHandlerResult => {
        if (restarts === 0) {
          restarts++;
          void vscode.window.showWarningMessage(
            'Folio: the conversion backend stopped unexpectedly and was restarted.',
          );
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
