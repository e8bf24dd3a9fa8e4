/**
 * The extension's context object: it owns the backend client, the output channel, the
 * configuration and every disposable, so commands are small factories that take it.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { createClient, PagePartialRouter } from './client';
import { ConversionListeners } from './conversion';
import { PagePartialNotification } from '../common/protocol';
import { redactingLog } from './logRedaction';
import { ExportRecords } from './commands/exportRecords';
import { readConfig, type FolioConfig } from './settings';

export { OUTPUT_FORMATS, type FolioConfig, type OutputFormat } from './settings';

export class FolioContext implements vscode.Disposable {
  readonly output: vscode.LogOutputChannel;
  readonly conversions: ConversionListeners;
  /** Page-image cache (the preview's localResourceRoots include it). */
  readonly cacheDir: vscode.Uri;
  /** What Folio last wrote to each DoclingDocument / chunks / DocTags output (overwrite and up-to-date checks). */
  readonly exportRecords: ExportRecords;
  /** Routes `folio/pagePartial` to the conversion that asked for it (by partial-result token). */
  readonly pagePartials = new PagePartialRouter();
  private clientPromise: Promise<LanguageClient> | undefined;
  /** Disposed when the client stops (rust-analyzer's pushClientCleanup): handlers on the client. */
  private readonly clientCleanups: vscode.Disposable[] = [];
  private client_: LanguageClient | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(readonly extension: vscode.ExtensionContext) {
    // Every line Folio logs is redacted (src/logRedaction.ts): no password or key in the log file.
    this.output = redactingLog(vscode.window.createOutputChannel('Folio', { log: true }));
    this.conversions = new ConversionListeners(this.output);
    this.cacheDir = vscode.Uri.joinPath(extension.globalStorageUri, 'pages');
    this.exportRecords = new ExportRecords(extension.globalState);
    this.disposables.push(this.output);
  }

  get config(): FolioConfig {
    return readConfig(
      vscode.workspace.getConfiguration('folio'),
      vscode.Uri.joinPath(this.extension.globalStorageUri, 'models').fsPath,
    );
  }

  /** The started backend client (started on first use, so activation stays cheap). */
  client(): Promise<LanguageClient> {
    if (!this.clientPromise) {
      const client = createClient(this.extension, this.output);
      this.client_ = client;
      this.pushClientCleanup(client.onNotification(PagePartialNotification.type, (p) => this.pagePartials.dispatch(p)));
      this.clientPromise = client.start().then(
        () => client,
        (e: unknown) => {
          this.clientPromise = undefined;
          throw e;
        },
      );
    }
    return this.clientPromise;
  }

  /** Ties `d` to the backend client's lifetime: disposed when the client stops. */
  pushClientCleanup(d: vscode.Disposable): void {
    this.clientCleanups.push(d);
  }

  push(...d: vscode.Disposable[]): void {
    this.disposables.push(...d);
  }

  async stop(): Promise<void> {
    for (const d of this.clientCleanups.splice(0)) d.dispose();
    await this.client_?.stop().catch(() => undefined);
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
