/**
 * "Folio: Download models": downloads granite-docling (and optionally the heron layout
 * detector) into the models folder, with a cancellable progress notification. The backend does
 * the download (`folio/pullModel`, server/modelStore), as it does every other piece of work: the
 * extension host runs no backend code. A failed or offline download changes nothing installed:
 * the pipeline engine keeps working.
 */
import * as vscode from 'vscode';
import { randomUUID } from 'node:crypto';
import { PullModelRequest } from '../../common/protocol';
import type { FolioContext } from '../context';
import { forwardWorkDone } from '../workDoneProgress';
import { messageOf } from '../../common/errorKinds';

interface ModelPick extends vscode.QuickPickItem {
  repos: string[];
}

interface DtypePick extends vscode.QuickPickItem {
  dtype: string;
}

/** Which models, and granite-docling's precision; undefined when the user backs out. */
async function pickModels(): Promise<{ repos: string[]; dtype: string } | undefined> {
  const which = await vscode.window.showQuickPick<ModelPick>(
    [
      {
        label: 'granite-docling-258M + heron layout detector',
        description: 'VLM and layout priors',
        repos: ['granite-docling', 'heron'],
      },
      {
        label: 'granite-docling-258M',
        description: 'document VLM (page image → DocTags)',
        repos: ['granite-docling'],
      },
      { label: 'docling-layout-heron', description: 'layout detector only', repos: ['heron'] },
    ],
    { title: 'Folio: Download models', placeHolder: 'Which models?' },
  );
  if (!which) return undefined;
  if (!which.repos.includes('granite-docling')) return { repos: which.repos, dtype: 'fp32' };
  const pick = await vscode.window.showQuickPick<DtypePick>(
    [
      { label: 'fp32', description: 'full precision, ~1 GB (best on CPU)', dtype: 'fp32' },
      { label: 'fp16', description: 'half precision, ~0.5 GB (GPU)', dtype: 'fp16' },
      { label: 'q8', description: '8-bit quantized, smaller and faster on CPU', dtype: 'q8' },
      { label: 'q4', description: '4-bit weights, smallest', dtype: 'q4' },
    ],
    { title: 'Folio: model precision', placeHolder: 'Which variant of granite-docling?' },
  );
  return pick ? { repos: which.repos, dtype: pick.dtype } : undefined;
}

/**
 * Folio's catalog pins no checksums yet (server/modelStore/catalog.ts): the files can only be checked
 * against the hub's own listing, so the user decides whether to trust the hub.
 */
async function trustHub(): Promise<boolean> {
  const trust = await vscode.window.showWarningMessage(
    'Folio cannot check these model files against checksums of its own yet: only against the list of files that huggingface.co itself publishes (downloaded over HTTPS, from one fixed commit, recorded in folio-model.json). Download anyway?',
    { modal: true },
    'Download',
  );
  return trust === 'Download';
}

export function downloadModelsCommand(ctx: FolioContext) {
  return async (): Promise<string[] | undefined> => {
    const which = await pickModels();
    if (!which || !(await trustHub())) return undefined;
    const { dtype } = which;
    const dir = ctx.config.modelsDir;
    const installed: string[] = [];
    let cancelled = false;
    try {
      await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: 'Folio: downloading models', cancellable: true },
        async (progress, token) => {
          token.onCancellationRequested(() => (cancelled = true));
          const client = await ctx.client();
          for (const repo of which.repos) {
            const workDoneToken = randomUUID();
            const sub = forwardWorkDone(client, workDoneToken, progress, 1 / which.repos.length);
            let folder: string;
            try {
              ({ folder } = await client.sendRequest(
                PullModelRequest.type,
                { repo, dtype, dir, trustHub: true, workDoneToken },
                token,
              ));
            } finally {
              sub.dispose();
            }
            installed.push(folder);
            ctx.output.appendLine(`[info] model ${repo} (${dtype}) installed in ${folder}`);
          }
        },
      );
    } catch (e) {
      if (cancelled) {
        ctx.output.appendLine(
          `[info] model download cancelled${installed.length ? `; installed before the cancel: ${installed.join(', ')}` : ''}`,
        );
        return undefined;
      }
      const message = messageOf(e);
      ctx.output.appendLine(`[error] model download: ${message}`);
      void vscode.window.showErrorMessage(
        `Folio: the model download failed: ${message} The pipeline engine keeps working.`,
      );
      return undefined;
    }
    const choice = await vscode.window.showInformationMessage(
      `Folio: models installed in ${dir}. Use the VLM engine for conversions?`,
      'Use VLM',
      'Not now',
    );
    if (choice === 'Use VLM')
      await vscode.workspace.getConfiguration('folio').update('engine', 'vlm', vscode.ConfigurationTarget.Global);
    return installed;
  };
}
