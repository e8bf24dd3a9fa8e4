/**
 * Region editing in the preview: move (drag or arrow keys), resize (8 handles or Alt+arrows),
 * draw a new region (draw mode), change class (context menu / toolbar select), delete and
 * reparse. Geometry is in PDF points; pixel deltas are converted with the sheet's current size.
 * Every change is sent to the host, which owns the region map and the `.md`.
 */
import type { BBox, RegionClass } from '../../common/protocol';
import { EDITABLE_CLASSES, type PageView, type RegionView, type ViewMessageBody } from '../../common/viewMessages';
import { clampBox, classLabel, el, place } from './dom';

export interface EditingHost {
  post(m: ViewMessageBody): void;
  regionOf(id: string): RegionView | undefined;
  pageOf(id: string): PageView | undefined;
  select(id: string | undefined): void;
  setStatus(text: string, level?: 'info' | 'warning' | 'error'): void;
  redrawPage(page: number): void;
}

type Dir = 'n' | 's' | 'e' | 'w' | 'ne' | 'nw' | 'se' | 'sw';
const DIRS: Dir[] = ['nw', 'n', 'ne', 'e', 'se', 's', 'sw', 'w'];

interface Drag {
  id: string;
  mode: 'move' | Dir;
  startX: number;
  startY: number;
  start: BBox;
  scale: number;
  moved: boolean;
}

export class Editing {
  private selected: string | undefined;
  private drawing = false;
  private drag: Drag | undefined;
  private suppressClick = false;
  private menu: HTMLElement | undefined;

  constructor(private readonly host: EditingHost) {
    document.addEventListener('pointerdown', (ev) => {
      if (this.menu && !this.menu.contains(ev.target as Node)) this.closeMenu(false);
    });
  }

  /** True (once) when the click that follows a drag should not count as a click. */
  consumeClick(): boolean {
    const s = this.suppressClick;
    this.suppressClick = false;
    return s;
  }

  setSelected(id: string | undefined): void {
    for (const h of document.querySelectorAll('.handle')) h.remove();
    this.selected = id;
    if (!id) return;
    const box = boxOf(id);
    if (!box) return;
    for (const d of DIRS) {
      const h = el('div', { class: `handle handle-${d}`, 'data-dir': d, 'aria-hidden': 'true' });
      h.addEventListener('pointerdown', (ev) => this.beginDrag(ev, id, d));
      box.append(h);
    }
  }

  attachSheet(sheet: HTMLElement, page: PageView): void {
    sheet.addEventListener('pointerdown', (ev) => {
      if (this.drawing) {
        this.beginDraw(ev, sheet, page);
        return;
      }
      const target = (ev.target as HTMLElement).closest('.region') as HTMLElement | null;
      if (
        target &&
        target.dataset.id === this.selected &&
        !(ev.target as HTMLElement).classList.contains('handle') &&
        ev.button === 0
      ) {
        this.beginDrag(ev, target.dataset.id!, 'move');
      }
    });
  }

  get isDrawing(): boolean {
    return this.drawing;
  }

  /**
   * Draw mode without a mouse (Enter): a region across the text width in the middle of the part
   * of `page` in view, of the class in the toolbar; arrows and Alt+arrows then move and size it.
   */
  addAt(page: PageView): void {
    const sheet = document.querySelector<HTMLElement>(`.sheet[data-page="${page.page}"]`);
    if (!sheet) return;
    const rect = sheet.getBoundingClientRect();
    const mid = (Math.max(rect.top, 0) + Math.min(rect.bottom, window.innerHeight)) / 2;
    const y = ((mid - rect.top) / rect.height) * page.height;
    const box = clampBox(
      { x0: page.width * 0.12, y0: y - 12, x1: page.width * 0.88, y1: y + 12 },
      page.width,
      page.height,
    );
    const cls = ((document.getElementById('class-select') as HTMLSelectElement).value || 'text') as RegionClass;
    this.host.post({ type: 'addRegion', page: page.page, bbox: box, cls });
    this.host.setStatus(`Adding a ${classLabel(cls)} region…`);
    this.toggleDraw();
  }

  toggleDraw(): void {
    this.drawing = !this.drawing;
    document.getElementById('folio-root')!.classList.toggle('drawing', this.drawing);
    const btn = document.getElementById('draw-btn')!;
    btn.setAttribute('aria-pressed', String(this.drawing));
    this.host.setStatus(
      this.drawing ? 'Draw mode: drag on a page, or press Enter for a box in the middle of the page (Esc to stop)' : '',
    );
  }

  cancel(): void {
    if (this.drawing) this.toggleDraw();
    this.closeMenu(true);
  }

  changeClass(id: string, cls: RegionClass): void {
    const r = this.host.regionOf(id);
    if (!r || r.cls === cls) return;
    r.cls = cls;
    this.host.post({ type: 'editRegion', page: pageNum(id), regionId: id, bbox: r.bbox, cls });
    this.host.redrawPage(pageNum(id));
    this.host.setStatus(`Class set to ${classLabel(cls)}; reparse (R) to rewrite its Markdown`);
  }

  reparse(id: string): void {
    const r = this.host.regionOf(id);
    if (!r) return;
    boxOf(id)?.classList.add('busy');
    this.host.post({ type: 'reparse', page: pageNum(id), regionId: id, bbox: r.bbox, cls: r.cls });
    this.host.setStatus(`Reparsing region ${r.order + 1}…`);
  }

  remove(id: string): void {
    this.host.post({ type: 'deleteRegion', page: pageNum(id), regionId: id });
    this.host.select(undefined);
  }

  /** Keys on a focused region box; returns true when handled. */
  onRegionKey(ev: KeyboardEvent, id: string): boolean {
    const r = this.host.regionOf(id);
    const p = this.host.pageOf(id);
    if (!r || !p) return false;
    if (ev.key === 'ContextMenu' || (ev.key === 'F10' && ev.shiftKey)) {
      const rect = (ev.currentTarget as HTMLElement).getBoundingClientRect();
      this.host.select(id);
      this.openMenu(id, rect.left + 8, rect.top + 8);
    } else if (ev.key === 'r' || ev.key === 'R') this.reparse(id);
    else if (ev.key === 'Delete' || ev.key === 'Backspace') this.remove(id);
    else if (ev.key.startsWith('Arrow')) {
      const step = ev.shiftKey ? 10 : 2;
      const dx = ev.key === 'ArrowLeft' ? -step : ev.key === 'ArrowRight' ? step : 0;
      const dy = ev.key === 'ArrowUp' ? -step : ev.key === 'ArrowDown' ? step : 0;
      const b = r.bbox;
      // Alt+arrows resize (move the bottom-right corner); plain arrows move.
      const next = ev.altKey
        ? { ...b, x1: b.x1 + dx, y1: b.y1 + dy }
        : { x0: b.x0 + dx, y0: b.y0 + dy, x1: b.x1 + dx, y1: b.y1 + dy };
      this.host.select(id);
      this.commitBox(id, clampBox(next, p.width, p.height));
    } else return false;
    ev.preventDefault();
    return true;
  }

  openMenu(id: string, x: number, y: number): void {
    this.closeMenu(false);
    const r = this.host.regionOf(id);
    if (!r) return;
    const menu = el('div', { class: 'menu', role: 'menu', 'aria-label': `Region ${r.order + 1}` });
    const item = (label: string, action: () => void, extra: Record<string, string> = {}) => {
      const b = el('button', { role: 'menuitem', class: 'menu-item', ...extra }, label);
      b.addEventListener('click', () => {
        this.closeMenu(true);
        action();
      });
      menu.append(b);
      return b;
    };
    item('Reparse region (R)', () => this.reparse(id), { 'data-action': 'reparse' });
    item('Reveal in editor (Enter)', () => this.host.post({ type: 'reveal', regionId: id, focus: true }), {
      'data-action': 'reveal',
    });
    item('Delete region (Del)', () => this.remove(id), { 'data-action': 'delete' });
    menu.append(el('div', { class: 'menu-sep', role: 'separator' }, 'Change class'));
    for (const c of EDITABLE_CLASSES) {
      const b = item(classLabel(c), () => this.changeClass(id, c), { 'data-cls': c });
      b.setAttribute('role', 'menuitemradio');
      b.setAttribute('aria-checked', String(c === r.cls));
    }
    menu.addEventListener('keydown', (ev) => {
      const items = [...menu.querySelectorAll<HTMLButtonElement>('button')];
      const i = items.indexOf(document.activeElement as HTMLButtonElement);
      if (ev.key === 'ArrowDown') items[(i + 1) % items.length]!.focus();
      else if (ev.key === 'ArrowUp') items[(i - 1 + items.length) % items.length]!.focus();
      else if (ev.key === 'Escape') this.closeMenu(true);
      else return;
      ev.preventDefault();
      ev.stopPropagation();
    });
    menu.style.left = `${Math.min(x, window.innerWidth - 220)}px`;
    menu.style.top = `${Math.min(y, window.innerHeight - 420)}px`;
    document.body.append(menu);
    this.menu = menu;
    menu.dataset.region = id;
    menu.querySelector<HTMLButtonElement>('button')?.focus();
  }

  private closeMenu(refocus: boolean): void {
    if (!this.menu) return;
    const id = this.menu.dataset.region;
    this.menu.remove();
    this.menu = undefined;
    if (refocus && id) boxOf(id)?.focus();
  }

  private beginDrag(ev: PointerEvent, id: string, mode: Drag['mode']): void {
    const r = this.host.regionOf(id);
    const p = this.host.pageOf(id);
    const sheet = boxOf(id)?.closest('.sheet') as HTMLElement | null;
    if (!r || !p || !sheet) return;
    ev.preventDefault();
    ev.stopPropagation();
    const target = ev.currentTarget as HTMLElement;
    target.setPointerCapture(ev.pointerId);
    this.drag = {
      id,
      mode,
      startX: ev.clientX,
      startY: ev.clientY,
      start: { ...r.bbox },
      scale: p.width / sheet.getBoundingClientRect().width,
      moved: false,
    };
    const move = (e: PointerEvent) => this.onDrag(e);
    const up = (e: PointerEvent) => {
      target.removeEventListener('pointermove', move);
      target.removeEventListener('pointerup', up);
      target.removeEventListener('pointercancel', up);
      this.endDrag(e);
    };
    target.addEventListener('pointermove', move);
    target.addEventListener('pointerup', up);
    target.addEventListener('pointercancel', up);
  }

  private onDrag(ev: PointerEvent): void {
    const d = this.drag;
    if (!d) return;
    const p = this.host.pageOf(d.id)!;
    const dx = (ev.clientX - d.startX) * d.scale;
    const dy = (ev.clientY - d.startY) * d.scale;
    if (Math.abs(dx) + Math.abs(dy) > 1) d.moved = true;
    const b = { ...d.start };
    if (d.mode === 'move') {
      b.x0 += dx;
      b.x1 += dx;
      b.y0 += dy;
      b.y1 += dy;
    } else {
      if (d.mode.includes('w')) b.x0 += dx;
      if (d.mode.includes('e')) b.x1 += dx;
      if (d.mode.includes('n')) b.y0 += dy;
      if (d.mode.includes('s')) b.y1 += dy;
    }
    const r = this.host.regionOf(d.id)!;
    r.bbox = clampBox(b, p.width, p.height);
    const box = boxOf(d.id);
    if (box) place(box, r.bbox, p.width, p.height);
  }

  private endDrag(_ev: PointerEvent): void {
    const d = this.drag;
    this.drag = undefined;
    if (!d || !d.moved) return;
    this.suppressClick = true;
    setTimeout(() => (this.suppressClick = false), 0);
    const r = this.host.regionOf(d.id)!;
    this.commitBox(d.id, r.bbox);
  }

  private commitBox(id: string, bbox: BBox): void {
    const r = this.host.regionOf(id);
    const p = this.host.pageOf(id);
    if (!r || !p) return;
    r.bbox = bbox;
    const box = boxOf(id);
    if (box) place(box, bbox, p.width, p.height);
    this.host.post({ type: 'editRegion', page: p.page, regionId: id, bbox, cls: r.cls });
    this.host.setStatus('Box changed; reparse (R) to rewrite its Markdown');
  }

  private beginDraw(ev: PointerEvent, sheet: HTMLElement, page: PageView): void {
    if (ev.button !== 0) return;
    ev.preventDefault();
    ev.stopPropagation();
    sheet.setPointerCapture(ev.pointerId);
    const rect = sheet.getBoundingClientRect();
    const scale = page.width / rect.width;
    const x0 = (ev.clientX - rect.left) * scale;
    const y0 = (ev.clientY - rect.top) * scale;
    const draft = el('div', { class: 'region draft' });
    sheet.querySelector('.overlay')!.append(draft);
    let box: BBox = { x0, y0, x1: x0, y1: y0 };
    const move = (e: PointerEvent) => {
      box = clampBox(
        { x0, y0, x1: (e.clientX - rect.left) * scale, y1: (e.clientY - rect.top) * scale },
        page.width,
        page.height,
        0.5,
      );
      place(draft, box, page.width, page.height);
    };
    const up = () => {
      sheet.removeEventListener('pointermove', move);
      sheet.removeEventListener('pointerup', up);
      sheet.removeEventListener('pointercancel', up);
      draft.remove();
      if (box.x1 - box.x0 < 4 || box.y1 - box.y0 < 4) return;
      const sel = document.getElementById('class-select') as HTMLSelectElement;
      const cls = (sel.value || 'text') as RegionClass;
      this.host.post({ type: 'addRegion', page: page.page, bbox: clampBox(box, page.width, page.height), cls });
      this.host.setStatus(`Adding a ${classLabel(cls)} region…`);
      this.toggleDraw();
    };
    sheet.addEventListener('pointermove', move);
    sheet.addEventListener('pointerup', up);
    sheet.addEventListener('pointercancel', up);
  }
}

function boxOf(id: string): HTMLElement | null {
  return document.querySelector<HTMLElement>(`.region[data-id="${CSS.escape(id)}"]`);
}

function pageNum(id: string): number {
  return Number(/^p(\d+)-/.exec(id)![1]);
}
