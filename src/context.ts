/**
 * The extension's context object: it owns the backend client, the output channel, the
 * configuration and every disposable, so commands are small factories that take it.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { createClient } from './client';
import { ConversionListeners } from './conversion';
import type { RemoteVlmSettings } from '../server/protocol';

export interface FolioConfig {
  outputDirectory: string;
  renderScale: number;
  keepPageHeaders: boolean;
  ocr: 'auto' | 'always' | 'never';
  engine: 'pipeline' | 'vlm';
  /** Model folder: the setting, else the extension's global storage. */
  modelsDir: string;
  providers: string[];
  layoutPrior: 'auto' | 'on' | 'off';
  /** `folio.vlm.remoteUrl` (machine scope) set: the VLM runs on that server (docs/remote-vlm.md). */
  remoteVlm?: RemoteVlmSettings;
}

/** The remote VLM from machine settings; the key only from the environment, never from a settings file. */
function remoteVlmFrom(c: vscode.WorkspaceConfiguration): RemoteVlmSettings | undefined {
  const url = c.get<string>('vlm.remoteUrl', '').trim();
  if (!url) return undefined;
  const model = c.get<string>('vlm.remoteModel', '').trim() || 'ibm-granite/granite-docling-258M';
  const apiKey = process.env.FOLIO_VLM_API_KEY;
  return { url, model, ...(apiKey ? { apiKey } : {}) };
}

export class FolioContext implements vscode.Disposable {
  readonly output: vscode.LogOutputChannel;
  readonly conversions: ConversionListeners;
  /** Page-image cache (the preview's localResourceRoots include it). */
  readonly cacheDir: vscode.Uri;
  private clientPromise: Promise<LanguageClient> | undefined;
  private client_: LanguageClient | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(readonly extension: vscode.ExtensionContext) {
    this.output = vscode.window.createOutputChannel('Folio', { log: true });
    this.conversions = new ConversionListeners(this.output);
    this.cacheDir = vscode.Uri.joinPath(extension.globalStorageUri, 'pages');
    this.disposables.push(this.output);
  }

  get config(): FolioConfig {
    const c = vscode.workspace.getConfiguration('folio');
    return {
      outputDirectory: c.get<string>('outputDirectory', ''),
      renderScale: c.get<number>('renderScale', 2),
      keepPageHeaders: c.get<boolean>('keepPageHeaders', false),
      ocr: c.get<'auto' | 'always' | 'never'>('ocr', 'auto'),
      engine: c.get<'pipeline' | 'vlm'>('engine', 'pipeline'),
      modelsDir: c.get<string>('models.path', '').trim() || vscode.Uri.joinPath(this.extension.globalStorageUri, 'models').fsPath,
      providers: c.get<string[]>('vlm.providers', ['cuda', 'webgpu', 'cpu']),
      layoutPrior: c.get<'auto' | 'on' | 'off'>('vlm.layoutPrior', 'auto'),
      remoteVlm: remoteVlmFrom(c),
    };
  }

  /** The started backend client (started on first use, so activation stays cheap). */
  client(): Promise<LanguageClient> {
    if (!this.clientPromise) {
      const client = createClient(this.extension, this.output);
      this.client_ = client;
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

  push(...d: vscode.Disposable[]): void {
    this.disposables.push(...d);
  }

  async stop(): Promise<void> {
    await this.client_?.stop().catch(() => undefined);
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
