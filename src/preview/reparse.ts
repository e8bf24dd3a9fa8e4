/**
 * Edit-and-reparse: sends `folio/reparseRegion` for one region and puts the answer into the `.md`
 * as ONE WorkspaceEdit (so one undo restores the previous text). A newer reparse of the same
 * region cancels the older one. When the document changed while the backend worked, the region's
 * range has been moved by the region map, so the edit is re-anchored there; if the region's text
 * was deleted meanwhile, the result is dropped with a message rather than written somewhere else.
 *
 * It sees the linked view only through `ReparseTarget` (no view fields are changed from here).
 */
import * as vscode from 'vscode';
import {
  ReparseRegionRequest,
  type BBox,
  type ConvertOptions,
  type RegionClass,
  type ReparseRegionParams,
  type ReparseRegionResult,
} from '../../common/protocol';
import { reactionTo } from '../errorReactions';
import { sidecarOptions } from './sidecarSchema';
import { modelsDirOption } from '../paths';
import { addSecret } from '../logRedaction';
import type { FolioContext } from '../context';
import type { ReparseContext, ReparsePlan } from './reparsePlan';

/** What a reparse needs to know of a region. */
export interface RegionSnapshot {
  page: number;
  bbox: BBox;
  cls: RegionClass;
  order: number;
  /** The region has Markdown in the `.md` now. */
  linked: boolean;
}

/** The linked view as a reparse sees it (implemented by RegionEdits, regionEdits.ts). */
export interface ReparseTarget {
  readonly name: string;
  readonly mdUri: vscode.Uri;
  readonly pdfUri: vscode.Uri | undefined;
  documentVersion(): number;
  /** Applies a box/class change (possibly none) and returns the region, or undefined when it is gone. */
  editRegion(id: string, change: { bbox?: BBox; cls?: RegionClass }): RegionSnapshot | undefined;
  /** How the PDF was read (possibly from a sidecar). */
  reparseOptions(): ConvertOptions;
  pdfPassword(): string | undefined;
  rememberPassword(pw: string): void;
  /** Marks the region busy and cancels an older reparse of it. */
  beginReparse(id: string, status: string): vscode.CancellationToken;
  endReparse(id: string, token: vscode.CancellationToken): void;
  planReparse(id: string, c: ReparseContext): ReparsePlan;
  /** The region's Markdown now starts at `start` of the `.md` (empty: unlinked). */
  setRegionMarkdown(id: string, start: number, markdown: string, doctags: string): void;
  /** Removes the region; its range when it had Markdown, false when there was no such region. */
  removeRegion(id: string): { start: number; end: number } | undefined | false;
  regionDeleted(): void;
  notify(level: 'info' | 'warning', text: string, alsoPopup?: boolean): void;
}

/**
 * The view's options (how the text was read, possibly from a sidecar, so only the allow-listed
 * fields) plus the folders and providers from the user's configuration, never from the sidecar.
 */
function reparseOptions(ctx: FolioContext, t: ReparseTarget): ReparseRegionParams['options'] {
  const config = ctx.config;
  return {
    ...sidecarOptions(t.reparseOptions()),
    renderImages: false,
    cacheDir: ctx.cacheDir.fsPath,
    modelsDir: modelsDirOption(config.modelsDir),
    providers: config.providers,
    ...(config.remoteVlm ? { remoteVlm: config.remoteVlm } : {}),
  };
}

export async function reparseRegion(
  ctx: FolioContext,
  t: ReparseTarget,
  id: string,
  change: { bbox?: BBox; cls?: RegionClass },
): Promise<void> {
  const region = t.editRegion(id, change);
  if (!region) throw new Error(`Region ${id} is not in the view of ${t.name}.`);
  const pdfUri = t.pdfUri;
  if (!pdfUri) throw new Error(`The view of ${t.name} does not know its PDF; convert it again.`);
  const token = t.beginReparse(id, `Reparsing region ${region.order + 1} of page ${region.page}…`);
  const version = t.documentVersion();
  try {
    const client = await ctx.client();
    const params: ReparseRegionParams = {
      uri: pdfUri.toString(),
      version,
      page: region.page,
      regionId: id,
      bbox: region.bbox,
      cls: region.cls,
      password: t.pdfPassword(),
      options: reparseOptions(ctx, t),
    };
    let result: ReparseRegionResult | undefined;
    for (let attempt = 0; attempt < 3 && !result; attempt++) {
      try {
        result = await client.sendRequest(ReparseRegionRequest.type, params, token);
      } catch (e) {
        if (token.isCancellationRequested) return;
        const reaction = reactionTo(e);
        if (reaction.do !== 'ask-password') throw e;
        const pw = await vscode.window.showInputBox({
          title: `Folio: ${pdfUri.path.split('/').pop()} is password-protected`,
          prompt: reaction.prompt,
          password: true,
          ignoreFocusOut: true,
        });
        if (pw === undefined) return;
        addSecret(pw); // never logged (src/logRedaction.ts)
        t.rememberPassword(pw);
        params.password = pw;
      }
    }
    if (!result || token.isCancellationRequested) return; // a newer reparse took over
    await applyResult(t, id, version, region, result);
  } finally {
    t.endReparse(id, token);
  }
}

async function applyResult(
  t: ReparseTarget,
  id: string,
  version: number,
  region: RegionSnapshot,
  result: ReparseRegionResult,
): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(t.mdUri);
  const plan = t.planReparse(id, {
    requestVersion: version,
    currentVersion: doc.version,
    wasLinked: region.linked,
    markdown: result.markdown,
    docLength: doc.getText().length,
  });
  if (plan.kind === 'drop') {
    t.notify('warning', plan.reason, true);
    return;
  }
  const edit = new vscode.WorkspaceEdit();
  if (plan.kind === 'replace')
    edit.replace(doc.uri, new vscode.Range(doc.positionAt(plan.start), doc.positionAt(plan.end)), plan.text);
  else edit.insert(doc.uri, doc.positionAt(plan.offset), plan.text);
  if (!(await vscode.workspace.applyEdit(edit))) {
    t.notify('warning', `VS Code refused the edit of ${t.name} (read-only?); reparse result dropped.`, true);
    return;
  }
  // The change listener already moved the other ranges; set this region's range exactly.
  t.setRegionMarkdown(id, plan.start, plan.kind === 'replace' ? plan.text : plan.block, result.doctags);
  const warn = result.warnings.length ? ` (${result.warnings.join('; ')})` : '';
  const reanchored = plan.kind === 'replace' && plan.reanchored ? ' (re-anchored after your edits)' : '';
  t.notify(result.warnings.length ? 'warning' : 'info', `Region ${region.order + 1} reparsed${reanchored}${warn}`);
}

/** Deletes a region and its Markdown (with the blank line that separated it) as one edit. */
export async function deleteRegion(t: ReparseTarget, id: string): Promise<void> {
  const range = t.removeRegion(id);
  if (range === false) return;
  if (range) {
    const doc = await vscode.workspace.openTextDocument(t.mdUri);
    const text = doc.getText();
    let { start, end } = range;
    // Take the separating blank line with it, so no double gap is left behind.
    const after = /^\n+/.exec(text.slice(end))?.[0].length ?? 0;
    if (after > 0 && end + after < text.length) end += Math.min(after, 2);
    else {
      const before = /\n+$/.exec(text.slice(0, start))?.[0].length ?? 0;
      start -= Math.min(before, 2);
    }
    const edit = new vscode.WorkspaceEdit();
    edit.delete(doc.uri, new vscode.Range(doc.positionAt(start), doc.positionAt(end)));
    if (!(await vscode.workspace.applyEdit(edit))) {
      // The region is gone from the map but its Markdown stays: say so rather than claim it left.
      t.regionDeleted();
      t.notify(
        'warning',
        `VS Code refused the edit of ${t.name} (read-only?); the region's Markdown is still there.`,
        true,
      );
      return;
    }
  }
  t.regionDeleted();
  t.notify('info', `Region deleted${range ? ' with its Markdown (undo in the editor restores the text)' : ''}.`);
}
