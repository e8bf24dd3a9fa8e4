/**
 * Edit-and-reparse: sends `folio/reparseRegion` for one region and puts the answer into the `.md`
 * as ONE WorkspaceEdit (so one undo restores the previous text), then updates the region map and
 * the preview. A newer reparse of the same region cancels the older one. When the document
 * changed while the backend worked, the region's range has been moved by the region map, so the
 * edit is re-anchored there; if the region's text was deleted meanwhile, the result is dropped
 * with a message rather than written somewhere else.
 */
import * as vscode from 'vscode';
import { FolioErrorCodes, ReparseRegionRequest, type BBox, type RegionClass, type ReparseRegionParams, type ReparseRegionResult } from '../../server/protocol';
import { gridOf } from './regionMap';
import { planReparse } from './reparsePlan';
import { sidecarOptions } from './sidecarSchema';
import { modelsDirOption } from '../paths';
import type { PreviewSession } from './session';

/**
 * The session's options (how the text was read, possibly from a sidecar, so only the allow-listed
 * fields) plus the folders and providers from the user's configuration, never from the sidecar.
 */
function reparseOptions(s: PreviewSession): ReparseRegionParams['options'] {
  const config = s.ctx.config;
  return { ...sidecarOptions(s.options), renderImages: false, cacheDir: s.ctx.cacheDir.fsPath, modelsDir: modelsDirOption(config.modelsDir), providers: config.providers, ...(config.remoteVlm ? { remoteVlm: config.remoteVlm } : {}) };
}

function errorCode(e: unknown): number | undefined {
  const c = (e as { code?: unknown })?.code;
  return typeof c === 'number' ? c : undefined;
}

export async function reparseRegion(s: PreviewSession, id: string, change: { bbox?: BBox; cls?: RegionClass }): Promise<void> {
  const region = s.map.region(id);
  const page = region && s.map.page(region.page);
  if (!region || !page) throw new Error(`Region ${id} is not in the preview of ${s.name}.`);
  if (!s.pdfUri) throw new Error(`The preview of ${s.name} does not know its PDF; convert it again.`);
  if (change.bbox) {
    region.bbox = change.bbox;
    region.grid = gridOf(change.bbox, page.width, page.height);
  }
  if (change.cls) region.cls = change.cls;

  s.inflight.get(id)?.cancel();
  const cts = new vscode.CancellationTokenSource();
  s.inflight.set(id, cts);
  const wasLinked = !!region.range;
  const version = s.version();
  s.post({ type: 'status', level: 'info', text: `Reparsing region ${region.order + 1} of page ${region.page}…`, regionId: id, busy: true });
  try {
    const client = await s.ctx.client();
    const params: ReparseRegionParams = {
      uri: s.pdfUri.toString(),
      version,
      page: region.page,
      regionId: id,
      bbox: region.bbox,
      cls: region.cls,
      password: s.password,
      options: reparseOptions(s),
    };
    let result: ReparseRegionResult | undefined;
    for (let attempt = 0; attempt < 3 && !result; attempt++) {
      try {
        result = await client.sendRequest(ReparseRegionRequest.type, params, cts.token);
      } catch (e) {
        const code = errorCode(e);
        if (cts.token.isCancellationRequested) return;
        if (code !== FolioErrorCodes.PasswordRequired && code !== FolioErrorCodes.PasswordIncorrect) throw e;
        const pw = await vscode.window.showInputBox({ title: `Folio: ${s.pdfUri.path.split('/').pop()} is password-protected`, prompt: 'Enter the PDF password', password: true, ignoreFocusOut: true });
        if (pw === undefined) return;
        params.password = s.password = pw;
      }
    }
    if (!result || cts.token.isCancellationRequested) return; // a newer reparse took over
    await applyResult(s, id, version, wasLinked, result);
  } finally {
    if (s.inflight.get(id) === cts) {
      s.inflight.delete(id);
      s.post({ type: 'status', level: 'info', text: '', regionId: id, busy: false });
    }
    cts.dispose();
  }
}

async function applyResult(s: PreviewSession, id: string, version: number, wasLinked: boolean, result: ReparseRegionResult): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(s.mdUri);
  const plan = planReparse(s.map, id, { requestVersion: version, currentVersion: doc.version, wasLinked, markdown: result.markdown, docLength: doc.getText().length });
  if (plan.kind === 'drop') {
    notify(s, plan.reason);
    return;
  }
  const region = s.map.region(id)!;
  const edit = new vscode.WorkspaceEdit();
  if (plan.kind === 'replace') edit.replace(doc.uri, new vscode.Range(doc.positionAt(plan.start), doc.positionAt(plan.end)), plan.text);
  else edit.insert(doc.uri, doc.positionAt(plan.offset), plan.text);
  if (!(await vscode.workspace.applyEdit(edit))) {
    notify(s, `VS Code refused the edit of ${s.name} (read-only?); reparse result dropped.`);
    return;
  }
  // The change listener already moved the other ranges; set this region's range exactly.
  const md = plan.kind === 'replace' ? plan.text : plan.block;
  const start = plan.start;
  region.range = md ? { start, end: start + md.length } : undefined;
  region.text = md;
  region.doctags = result.doctags;
  if (md && doc.getText().slice(start, start + md.length) !== md) s.trySync();
  s.refresh();
  s.persist();
  const warn = result.warnings.length ? ` (${result.warnings.join('; ')})` : '';
  const reanchored = plan.kind === 'replace' && plan.reanchored ? ' (re-anchored after your edits)' : '';
  s.post({ type: 'status', level: result.warnings.length ? 'warning' : 'info', text: `Region ${region.order + 1} reparsed${reanchored}${warn}` });
}

/** Deletes a region and its Markdown (with the blank line that separated it) as one edit. */
export async function deleteRegion(s: PreviewSession, id: string): Promise<void> {
  s.inflight.get(id)?.cancel();
  const region = s.map.region(id);
  if (!region) return;
  const range = region.range;
  s.map.removeRegion(id);
  if (range) {
    const doc = await vscode.workspace.openTextDocument(s.mdUri);
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
    await vscode.workspace.applyEdit(edit);
  }
  if (s.selectedRegion === id) s.selectedRegion = undefined;
  s.refresh();
  s.persist();
  s.post({ type: 'status', level: 'info', text: `Region deleted${range ? ' with its Markdown (undo in the editor restores the text)' : ''}.` });
}

function notify(s: PreviewSession, text: string): void {
  s.post({ type: 'status', level: 'warning', text });
  void vscode.window.showWarningMessage(`Folio: ${text}`);
}
