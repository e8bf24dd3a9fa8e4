/**
 * The outline pane of a document born structured (outline.ts builds the entries): a list of
 * buttons, one per heading, table or slide. A click (or Enter) reveals the entry's Markdown in the
 * `.md` editor; the editor's cursor selects the entry of the section it is in. For a Word, Excel or
 * HTML file the outline is the whole view; for slides it sits beside the slide pages when
 * LibreOffice rendered them. The note above it says which (the host's words, `sourceNote`).
 *
 * Document text goes in through textContent only (dom.ts `el`).
 */
import type { PageView, SourceKind } from '../../common/viewMessages';
import { el } from './dom';
import { buildOutline, entryIndexFor, type OutlineEntry } from './outline';

export class OutlineView {
  private entries: OutlineEntry[] = [];
  private buttons: HTMLButtonElement[] = [];
  private selected = -1;
  /** The region the selection follows (the `.md` cursor's, or the entry clicked). */
  private current: string | undefined;
  private kind: SourceKind = 'pdf';

  constructor(
    private readonly root: HTMLElement,
    private readonly nav: HTMLElement,
    private readonly list: HTMLElement,
    private readonly note: HTMLElement,
    private readonly reveal: (regionId: string) => void,
  ) {
    list.addEventListener('keydown', (ev) => this.onKey(ev));
  }

  /**
   * Redraws from the view's pages. `kind` is the source's; the outline shows for any source that
   * is not a PDF; the pages too when they have images (slides rendered by LibreOffice).
   */
  update(kind: SourceKind, pages: ReadonlyMap<number, PageView>, note: string | undefined): void {
    this.kind = kind;
    const on = kind !== 'pdf';
    const withPages = on && [...pages.values()].some((p) => !!p.imageSrc);
    this.nav.hidden = !on;
    this.root.classList.toggle('source-outline', on && !withPages);
    this.root.classList.toggle('source-beside', withPages);
    this.root.dataset.source = on ? (withPages ? `${kind}-pages` : `${kind}-outline`) : 'pdf';
    this.note.textContent = note ?? '';
    this.note.hidden = !note;
    if (!on) {
      this.entries = [];
      this.buttons = [];
      this.list.replaceChildren();
      return;
    }
    const focused = this.buttons.indexOf(document.activeElement as HTMLButtonElement);
    this.entries = buildOutline(pages.values(), kind);
    this.buttons = this.entries.map((e) => this.entryButton(e));
    this.list.replaceChildren(
      ...this.buttons.map((b) => {
        const li = el('li');
        li.append(b);
        return li;
      }),
    );
    if (!this.entries.length && pages.size)
      this.list.append(el('li', { class: 'outline-empty' }, 'No headings or tables in this document.'));
    this.selected = this.current ? entryIndexFor(this.entries, pages, this.current) : -1;
    this.mark(false);
    if (focused >= 0) this.buttons[Math.min(focused, this.buttons.length - 1)]?.focus({ preventScroll: true });
  }

  /** The `.md` cursor is in region `regionId` (or none): select its section's entry. */
  select(regionId: string | undefined, pages: ReadonlyMap<number, PageView>, scroll: boolean): void {
    if (this.kind === 'pdf' || !regionId) return; // between blocks: the last entry stays selected
    this.current = regionId;
    const i = entryIndexFor(this.entries, pages, regionId);
    if (i < 0 || i === this.selected) return;
    this.selected = i;
    this.mark(scroll);
  }

  private mark(scroll: boolean): void {
    this.buttons.forEach((b, i) => {
      b.classList.toggle('selected', i === this.selected);
      if (i === this.selected) b.setAttribute('aria-current', 'true');
      else b.removeAttribute('aria-current');
    });
    const e = this.entries[this.selected];
    // What the outline has selected (the end-to-end test reads it).
    if (e) this.root.dataset.outlineSelected = e.regionId;
    else delete this.root.dataset.outlineSelected;
    for (const s of document.querySelectorAll('section.page.outline-current')) s.classList.remove('outline-current');
    if (e) document.getElementById(`page-${e.page}`)?.classList.add('outline-current');
    const b = this.buttons[this.selected];
    if (scroll && b) this.scrollTo(b);
  }

  /**
   * Brings an entry into sight without scrollIntoView: beside the slides, that would also cancel
   * the smooth scroll that brings the slide into view (main.ts `select`).
   */
  private scrollTo(b: HTMLElement): void {
    const r = b.getBoundingClientRect();
    if (this.root.classList.contains('source-beside')) {
      const n = this.nav.getBoundingClientRect();
      if (r.top < n.top || r.bottom > n.bottom) this.nav.scrollTop += r.top - n.top - n.height / 3;
      return;
    }
    const top = document.querySelector('.toolbar')?.getBoundingClientRect().bottom ?? 0;
    if (r.top < top || r.bottom > window.innerHeight) window.scrollBy({ top: r.top - top - window.innerHeight / 3 });
  }

  /** Beside the slides, a click on a slide reveals its Markdown (its regions have no boxes to click). */
  onSheetClick(ev: MouseEvent): void {
    if (!this.root.classList.contains('source-beside')) return;
    const sheet = (ev.target as Element | null)?.closest<HTMLElement>('.sheet');
    const page = Number(sheet?.dataset.page);
    const i = this.entries.findIndex((e) => e.page === page && e.kind === 'slide');
    if (i < 0) return;
    this.current = this.entries[i]!.regionId;
    this.selected = i;
    this.mark(false);
    if (this.entries[i]!.linked) this.reveal(this.entries[i]!.regionId);
  }

  private entryButton(e: OutlineEntry): HTMLButtonElement {
    const b = el(
      'button',
      {
        class: `outline-entry kind-${e.kind} level-${Math.min(e.level, 7)}${e.linked ? '' : ' unlinked'}`,
        'data-region': e.regionId,
        title: e.linked ? 'Show in the Markdown (Enter)' : 'No Markdown for this entry now',
      },
      e.text,
    );
    b.addEventListener('click', () => {
      this.current = e.regionId;
      this.selected = this.entries.indexOf(e);
      this.mark(false);
      if (e.linked) this.reveal(e.regionId);
    });
    return b;
  }

  /** Up / Down / Home / End move between entries (Enter and Space are the buttons' own). */
  private onKey(ev: KeyboardEvent): void {
    const i = this.buttons.indexOf(document.activeElement as HTMLButtonElement);
    if (i < 0) return;
    const to =
      ev.key === 'ArrowDown'
        ? i + 1
        : ev.key === 'ArrowUp'
          ? i - 1
          : ev.key === 'Home'
            ? 0
            : ev.key === 'End'
              ? this.buttons.length - 1
              : undefined;
    if (to === undefined) return;
    ev.preventDefault();
    ev.stopPropagation();
    this.buttons[Math.max(0, Math.min(this.buttons.length - 1, to))]?.focus();
  }
}
