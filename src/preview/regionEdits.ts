/**
 * Region edits of one linked view (view.ts's edit part): a box moved or its class changed, a
 * region drawn or deleted in the view, and the view's side of a reparse. reparse.ts drives a
 * reparse through the narrow `ReparseTarget` interface this implements; every change is
 * redrawn and kept in the sidecar.
 */
import * as vscode from 'vscode';
import type { BBox, ConvertOptions, RegionClass } from '../../common/protocol';
import { gridOf } from './regionMap';
import { deleteRegion, reparseRegion, type RegionSnapshot, type ReparseTarget } from './reparse';
import { planReparse, type ReparseContext, type ReparsePlan } from './reparsePlan';
import type { ScrollLink } from './scrollSync';
import type { ViewPanel } from './viewPanel';
import type { ViewState } from './viewState';

/** A box or class change the view asks for. */
type RegionChange = { bbox?: BBox; cls?: RegionClass };

export class RegionEdits implements ReparseTarget {
  /** Reparses in flight, by region id; a newer one cancels the older. */
  private readonly inflight = new Map<string, vscode.CancellationTokenSource>();
  /** Password the PDF needed for a reparse (kept for this view only). */
  private password: string | undefined;

  constructor(
    private readonly s: ViewState,
    private readonly panel: ViewPanel,
    private readonly scroll: ScrollLink,
  ) {}

  get name(): string {
    return this.s.name;
  }

  get mdUri(): vscode.Uri {
    return this.s.mdUri;
  }

  get pdfUri(): vscode.Uri | undefined {
    return this.s.pdf;
  }

  documentVersion(): number {
    return this.s.documentVersion();
  }

  // ------------------------------------------------------------ from the view (viewInput.ts)

  /** A box moved or a class changed in the view; the Markdown stays until the region is reparsed. */
  edit(id: string, change: RegionChange): void {
    if (!this.editRegion(id, change)) return;
    this.panel.refresh();
    this.s.persist();
  }

  /** Reads the region again (with the view's new box or class, if any) and writes its Markdown. */
  async reparse(id: string, change: RegionChange = {}): Promise<void> {
    await reparseRegion(this.s.ctx, this, id, change);
  }

  /** A region drawn in the view: selected, highlighted and read at once. */
  async add(page: number, bbox: BBox, cls: RegionClass): Promise<void> {
    const r = this.s.map.addRegion(page, bbox, cls);
    this.s.selected = r.id;
    this.panel.refresh();
    // The region just drawn becomes the selection, ready to adjust or delete.
    this.scroll.highlightDrawn(r.id);
    await reparseRegion(this.s.ctx, this, r.id, {});
  }

  async delete(id: string): Promise<void> {
    await deleteRegion(this, id);
  }

  /** A new conversion or the view's end: reparses in flight are cancelled. */
  cancelAll(): void {
    for (const c of this.inflight.values()) c.cancel();
    this.inflight.clear();
  }

  // ------------------------------------------------------------ ReparseTarget (reparse.ts)

  editRegion(id: string, change: RegionChange): RegionSnapshot | undefined {
    const map = this.s.map;
    const r = map.region(id);
    const p = r && map.page(r.page);
    if (!r || !p) return undefined;
    if (change.bbox) {
      r.bbox = change.bbox;
      r.grid = gridOf(change.bbox, p.width, p.height);
    }
    if (change.cls) r.cls = change.cls;
    this.s.selected = r.id;
    return { page: r.page, bbox: r.bbox, cls: r.cls, order: r.order, linked: !!r.range };
  }

  reparseOptions(): ConvertOptions {
    return this.s.options;
  }

  pdfPassword(): string | undefined {
    return this.password;
  }

  rememberPassword(pw: string): void {
    this.password = pw;
  }

  beginReparse(id: string, text: string): vscode.CancellationToken {
    this.inflight.get(id)?.cancel();
    const cts = new vscode.CancellationTokenSource();
    this.inflight.set(id, cts);
    this.panel.post({ type: 'status', level: 'info', text, regionId: id, busy: true });
    return cts.token;
  }

  endReparse(id: string, token: vscode.CancellationToken): void {
    const cts = this.inflight.get(id);
    if (cts?.token !== token) return; // a newer reparse of this region owns it now
    this.inflight.delete(id);
    cts.dispose();
    this.panel.post({ type: 'status', level: 'info', text: '', regionId: id, busy: false });
  }

  planReparse(id: string, c: ReparseContext): ReparsePlan {
    return planReparse(this.s.map, id, c);
  }

  setRegionMarkdown(id: string, start: number, markdown: string, doctags: string): void {
    const region = this.s.map.region(id);
    if (!region) return;
    region.range = markdown ? { start, end: start + markdown.length } : undefined;
    region.text = markdown;
    region.doctags = doctags;
    const doc = this.s.document();
    if (markdown && doc && doc.getText().slice(start, start + markdown.length) !== markdown) this.s.sync();
    this.panel.refresh();
    this.s.persist();
  }

  removeRegion(id: string): { start: number; end: number } | undefined | false {
    this.inflight.get(id)?.cancel();
    const region = this.s.map.removeRegion(id);
    if (!region) return false;
    if (this.s.selected === id) this.s.selected = undefined;
    return region.range;
  }

  regionDeleted(): void {
    this.panel.refresh();
    this.s.persist();
  }

  notify(level: 'info' | 'warning', text: string, alsoPopup = false): void {
    this.panel.post({ type: 'status', level, text });
    if (alsoPopup) void vscode.window.showWarningMessage(`Folio: ${text}`);
  }
}
