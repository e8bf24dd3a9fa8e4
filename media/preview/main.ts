/**
 * The Folio linked view: the PDF's pages, readable (fit width by default, zoom), with region
 * boxes, linked both ways with the `.md` editor beside it, region editing (select, move, resize,
 * change class, draw, delete, reparse), every action on a key, and the page's rendered Markdown one
 * key away (M). Page images are virtualised (virtual.ts). It talks to src/preview/view.ts only
 * through common/viewMessages.ts.
 *
 * Every PDF-derived string reaches the DOM through textContent (see markdown.ts); styles are set
 * through CSSOM, which the CSP (no 'unsafe-inline') allows.
 */
import type { RegionClass } from '../../common/protocol';
import {
  EDITABLE_CLASSES,
  isStale,
  MAX_SHARPEN_PAGES,
  MAX_SHARPEN_SCALE,
  parseHostMessage,
  refusalNotice,
  type HostMessage,
  type PageView,
  type RegionView,
  type ViewMessageBody,
  sourceKindOf,
} from '../../common/viewMessages';
import { renderMarkdown } from './markdown';
import { classLabel, el, place } from './dom';
import { Editing } from './editing';
import { PartialPages } from './partials';
import { Zoom } from './zoom';
import { PageImages } from './virtual';
import { ViewScrollSync } from './scrollSync';
import { OutlineView } from './outlineView';

declare function acquireVsCodeApi(): { postMessage(m: unknown): void; setState(s: unknown): void; getState(): unknown };
const vscode = acquireVsCodeApi();

interface State {
  uri: string;
  version: number;
  pdfUri: string;
  pages: Map<number, PageView>;
  converting: boolean;
}

const root = document.getElementById('folio-root')!;
const pagesEl = document.getElementById('pages')!;
const legendEl = document.getElementById('legend')!;
const statusEl = document.getElementById('status')!;
const titleEl = document.getElementById('title')!;

const saved = vscode.getState() as { uri?: string; zoom?: number; showMd?: boolean } | undefined;
const state: State = {
  uri: root.dataset.uri || saved?.uri || '',
  version: 0,
  pdfUri: '',
  pages: new Map(),
  converting: false,
};
const partials = new PartialPages();
const hiddenClasses = new Set<RegionClass>();
let selectedId: string | undefined;
const busy = new Set<string>();
/** ms from this document's start to its script running (sent with `ready`: the first-paint trace). */
const scriptMs = performance.now();
let paintedSent = false;
/** When each page's message came in (performance.now), for the first-paint trace. */
const received = new Map<number, number>();
/** Inline page images (`imageData`, a conversion's first page) by the `imageSrc` they stand for. */
const inlineImages = new Map<string, string>();
const images = new PageImages((page, requested) => {
  if (paintedSent) return;
  paintedSent = true;
  const loaded = performance.now();
  const since = (t: number | undefined) => Math.max(0, (t ?? loaded) - scriptMs);
  // The frame after the image loaded is the one that shows it.
  requestAnimationFrame(() =>
    post({
      type: 'painted',
      page,
      steps: { received: since(received.get(page)), requested: since(requested), loaded: since(loaded) },
    }),
  );
});
/** The backend's count while converting (pages done of the PDF's pages). */
let progress: { done: number; total: number } | undefined;
const zoom = new Zoom(document.getElementById('zoom-level')!, () => {
  saveState();
  scheduleSharpen();
});

let sharpenTimer: ReturnType<typeof setTimeout> | undefined;
/** After zooming or scrolling settles: ask for sharper images of the pages in view that need them. */
function scheduleSharpen(): void {
  clearTimeout(sharpenTimer);
  sharpenTimer = setTimeout(requestSharper, 400);
}

/**
 * Pages in view whose image has fewer pixels than the page covers on the device (CSS width ×
 * devicePixelRatio) are asked again at the scale that covers it (in ¼ steps, at most ×8).
 */
function requestSharper(): void {
  // Slide images come from LibreOffice's PDF, which the host does not keep: no sharper ones.
  if (state.converting || sourceKindOf(state.pdfUri) !== 'pdf') return;
  const pages: number[] = [];
  let scale = 0;
  for (const sheet of document.querySelectorAll<HTMLElement>('section.page .sheet')) {
    const r = sheet.getBoundingClientRect();
    if (r.bottom < 0 || r.top > window.innerHeight) continue;
    const p = state.pages.get(Number(sheet.dataset.page));
    if (!p?.imageSrc || !p.imageWidth) continue;
    const need = r.width * window.devicePixelRatio;
    if (p.imageWidth >= need * 0.98) continue;
    pages.push(p.page);
    scale = Math.max(scale, Math.min(MAX_SHARPEN_SCALE, Math.ceil((need / p.width) * 4) / 4));
  }
  if (pages.length) post({ type: 'sharpen', pages: pages.slice(0, MAX_SHARPEN_PAGES), scale });
}
let showMd = saved?.showMd === true;

function saveState(): void {
  vscode.setState({ uri: state.uri, zoom: zoom.value, showMd });
}

export function post(m: ViewMessageBody): void {
  vscode.postMessage({ ...m, uri: state.uri, version: state.version });
}

export function pageOf(id: string): PageView | undefined {
  const m = /^p(\d+)-/.exec(id);
  return m ? state.pages.get(Number(m[1])) : undefined;
}

export function regionOf(id: string): RegionView | undefined {
  return pageOf(id)?.regions.find((r) => r.id === id);
}

export function setStatus(text: string, level: 'info' | 'warning' | 'error' = 'info'): void {
  statusEl.textContent = text;
  statusEl.dataset.level = level;
}

/** The outline of an Office/HTML source (outlineView.ts); hidden for a PDF. */
const outline = new OutlineView(
  root,
  document.getElementById('outline')!,
  document.getElementById('outline-list')!,
  document.getElementById('source-note')!,
  (id) => reveal(id, true),
);
let sourceNote: string | undefined;
let outlineTimer: ReturnType<typeof setTimeout> | undefined;
/** Pages arriving one after another redraw the outline once. */
function updateOutline(): void {
  clearTimeout(outlineTimer);
  outlineTimer = setTimeout(() => {
    outline.update(sourceKindOf(state.pdfUri), state.pages, sourceNote);
    outlineShown();
  }, 30);
}
/**
 * An outline alone has no page image to paint: the outline drawn is the first paint (the host's
 * first-paint trace and the `.md` editor's gate wait for it).
 */
function outlineShown(): void {
  if (paintedSent || !root.classList.contains('source-outline') || !state.pages.size) return;
  paintedSent = true;
  const page = Math.min(...state.pages.keys());
  requestAnimationFrame(() => post({ type: 'painted', page }));
}
pagesEl.addEventListener('click', (ev) => outline.onSheetClick(ev));

const scrollSync = new ViewScrollSync(
  root,
  () => state.pages,
  (regionId, fraction) => post({ type: 'scrolled', regionId, fraction }),
);

/**
 * Before the first page is in, the view says what it waits for ("Converting page 1 of 12…") in a
 * page-shaped frame, so the pane is never blank; afterwards the status line counts the pages.
 */
function showProgress(): void {
  const waiting = state.converting && pagesEl.children.length === 0;
  const placeholder = document.getElementById('converting')!;
  placeholder.hidden = !waiting;
  if (waiting) {
    const text = progress
      ? `Converting page ${Math.min(progress.done + 1, progress.total)} of ${progress.total}…`
      : 'Opening the PDF…';
    document.getElementById('converting-text')!.textContent = text;
    // What the view last said while it waited (the end-to-end test reads it after the page is in).
    root.dataset.waitingText = text;
  }
  if (!state.converting) return;
  if (!state.pages.size) setStatus('Converting…');
  else
    setStatus(
      progress
        ? `Converting… ${state.pages.size} of ${progress.total} page${progress.total === 1 ? '' : 's'} done`
        : `Converting… ${state.pages.size} page${state.pages.size === 1 ? '' : 's'} done`,
    );
}

const editing = new Editing({
  post,
  regionOf,
  pageOf,
  select: (id) => select(id, true),
  setStatus,
  redrawPage: (n) => renderPage(state.pages.get(n)!),
});

// ---------------------------------------------------------------- rendering

function renderPage(p: PageView): void {
  let section = document.getElementById(`page-${p.page}`);
  const fresh = !section;
  if (!section) section = pageSection(p.page);
  // A redraw replaces the region boxes; keyboard focus on one (a class change, a reparse's
  // result) moves to its replacement, so the next key (R, Del, arrows) still reaches it.
  const focused = section.contains(document.activeElement)
    ? (document.activeElement as HTMLElement).closest<HTMLElement>('.region')?.dataset.id
    : undefined;
  // When the page arrived (ms since epoch): lets the end-to-end test time a cancel precisely.
  // A section first made for the page's partial gets it now, when the page itself is in.
  if (fresh || section.classList.contains('page-partial')) section.dataset.arrived = String(Date.now());
  // Only a finished page is a `section.page` (tests count those); a partial one is `page-partial`.
  section.className = 'page';
  section.removeAttribute('aria-busy');
  section.replaceChildren();
  const noun = sourceKindOf(state.pdfUri) === 'slides' ? 'Slide' : 'Page';
  const head = el('h2', { class: 'page-title' }, `${noun} ${p.page}${p.ocr ? ' (OCR)' : ''}`);
  section.append(head);
  for (const w of [...p.warnings, ...(p.error ? [p.error] : [])])
    section.append(el('p', { class: 'page-warning', role: 'note' }, w));

  const body = el('div', { class: 'page-body' });
  const sheet = el('div', { class: 'sheet', 'data-page': String(p.page) });
  sheet.style.aspectRatio = `${p.width} / ${p.height}`;
  sheet.setAttribute('role', 'group');
  sheet.setAttribute('aria-label', `Page ${p.page}`);
  if (!p.imageSrc) sheet.append(el('div', { class: 'no-image' }, 'No page image'));
  if (p.imageSrc && p.imageData) inlineImages.set(p.imageSrc, p.imageData);
  received.set(p.page, received.get(p.page) ?? performance.now());
  images.watch(sheet, p.page, (p.imageSrc && inlineImages.get(p.imageSrc)) ?? p.imageSrc);
  const overlay = el('div', { class: 'overlay', role: 'list', 'aria-label': `Regions of page ${p.page}` });
  const excerpts = new Map(p.blocks.filter((b) => b.regionId).map((b) => [b.regionId!, excerpt(b.markdown)]));
  for (const r of [...p.regions].sort((a, b) => a.order - b.order)) overlay.append(regionBox(p, r, excerpts.get(r.id)));
  sheet.append(overlay);
  editing.attachSheet(sheet, p);

  const md = el('div', { class: 'page-md', 'aria-label': `Markdown of page ${p.page}` });
  for (const b of p.blocks) {
    const block = el('div', { class: 'md-block' });
    if (b.regionId) {
      block.dataset.region = b.regionId;
      block.addEventListener('click', () => reveal(b.regionId!, true));
    }
    block.append(
      renderMarkdown(b.markdown, {
        picture: (alt) => pictureCrop(p, b.regionId, alt),
      }),
    );
    md.append(block);
  }
  body.append(sheet, md);
  section.append(body);
  if (selectedId && pageOf(selectedId) === p) select(selectedId, false);
  if (focused)
    [...overlay.querySelectorAll<HTMLElement>('.region')]
      .find((b) => b.dataset.id === focused)
      ?.focus({ preventScroll: true });
  if (fresh) updateLegend();
}

let renderQueue: PageView[] = [];
let renderTimer: ReturnType<typeof setTimeout> | undefined;
/**
 * An init with many pages (a view opened while 200 pages are already in): the first ones now, so
 * page 1's image starts loading and is painted, the rest 20 at a time between frames. A page that
 * arrives meanwhile is drawn at once and its queued copy skipped.
 */
function renderPagesSoon(pages: PageView[]): void {
  clearTimeout(renderTimer);
  for (const p of pages.slice(0, 3)) renderPage(p);
  renderQueue = pages.slice(3);
  const step = () => {
    for (const p of renderQueue.splice(0, 20)) if (state.pages.get(p.page) === p) renderPage(p);
    if (renderQueue.length) renderTimer = setTimeout(step, 16);
    else updateLegend();
  };
  if (renderQueue.length) renderTimer = setTimeout(step, 16);
}

/** A page's section, placed in page order (a page may arrive late: a re-rendered page). */
function pageSection(page: number, cls = 'page'): HTMLElement {
  const section = el('section', { class: cls, id: `page-${page}`, 'aria-label': `Page ${page}` });
  section.dataset.page = String(page);
  const next = [...pagesEl.children].find((c) => Number((c as HTMLElement).dataset.page) > page);
  pagesEl.insertBefore(section, next ?? null);
  return section;
}

/**
 * A page the VLM is still writing: its Markdown so far (DOM nodes, as every page) under a
 * "generating…" marker, in the slot the page will take; `renderPage` replaces it.
 */
function renderPartial(page: number, markdown: string): void {
  const section = document.getElementById(`page-${page}`) ?? pageSection(page, 'page-partial');
  section.setAttribute('aria-busy', 'true');
  const md = el('div', { class: 'page-md partial-md', 'aria-label': `Markdown of page ${page} so far` });
  md.append(
    renderMarkdown(markdown, { picture: (alt) => el('div', { class: 'md-picture' }, `[${alt || 'picture'}]`) }),
  );
  section.replaceChildren(
    el('h2', { class: 'page-title' }, `Page ${page}`),
    el('p', { class: 'page-generating', role: 'status' }, 'generating…'),
    md,
  );
}

/** The start of a block's text, for a screen reader's label (Markdown marks dropped). */
function excerpt(md: string): string {
  const t = md
    .replace(/[#*_`>|$\\[\]]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return t.length > 80 ? `${t.slice(0, 80)}…` : t;
}

function regionBox(p: PageView, r: RegionView, text: string | undefined): HTMLElement {
  const furniture = r.cls === 'page_header' || r.cls === 'page_footer';
  const box = el('div', {
    class: `region cls-${r.cls}${furniture ? ' furniture' : ''}${r.linked ? '' : ' unlinked'}${busy.has(r.id) ? ' busy' : ''}`,
    role: 'listitem',
    tabindex: '0',
    'data-id': r.id,
    'aria-label': `Region ${r.order + 1}, ${classLabel(r.cls)}, page ${p.page}${r.linked ? (text ? `: ${text}` : '') : ' (no Markdown)'}`,
    title: `${r.order + 1}. ${classLabel(r.cls)} — Enter: reveal, R: reparse, Del: delete, menu: more`,
  });
  place(box, r.bbox, p.width, p.height);
  box.append(el('span', { class: 'order', 'aria-hidden': 'true' }, String(r.order + 1)));
  // Shown on hover and focus: class and reading-order number.
  box.append(el('span', { class: 'region-label', 'aria-hidden': 'true' }, `${r.order + 1} · ${classLabel(r.cls)}`));
  box.addEventListener('mouseenter', () => hover(r.id, true));
  box.addEventListener('mouseleave', () => hover(r.id, false));
  box.addEventListener('click', (ev) => {
    if (editing.consumeClick()) return;
    ev.stopPropagation();
    reveal(r.id, true);
  });
  box.addEventListener('keydown', (ev) => editing.onRegionKey(ev, r.id) || onRegionKey(ev, r.id));
  box.addEventListener('contextmenu', (ev) => {
    ev.preventDefault();
    select(r.id, false);
    editing.openMenu(r.id, ev.clientX, ev.clientY);
  });
  return box;
}

/** A picture block shows its region cropped out of the page image (no extra resource roots needed). */
function pictureCrop(p: PageView, regionId: string | undefined, alt: string): HTMLElement {
  const r = regionId ? p.regions.find((x) => x.id === regionId) : undefined;
  const wrap = el('div', { class: 'md-picture', role: 'img', 'aria-label': alt || 'picture' });
  if (!r || !p.imageSrc) {
    wrap.textContent = `[${alt || 'picture'}]`;
    return wrap;
  }
  const bw = r.bbox.x1 - r.bbox.x0;
  const bh = r.bbox.y1 - r.bbox.y0;
  const inner = el('div', { class: 'md-picture-inner' });
  inner.style.aspectRatio = `${bw} / ${bh}`;
  inner.style.backgroundImage = `url("${p.imageSrc.replace(/["\\\n]/g, '')}")`;
  inner.style.backgroundSize = `${(p.width / bw) * 100}% ${(p.height / bh) * 100}%`;
  inner.style.backgroundPosition = `${(r.bbox.x0 / Math.max(1e-6, p.width - bw)) * 100}% ${(r.bbox.y0 / Math.max(1e-6, p.height - bh)) * 100}%`;
  wrap.append(inner);
  return wrap;
}

function updateLegend(): void {
  const present = new Set<RegionClass>();
  for (const p of state.pages.values()) for (const r of p.regions) present.add(r.cls);
  legendEl.replaceChildren();
  for (const cls of [...present].sort()) {
    const id = `toggle-${cls}`;
    const label = el('label', { class: `legend-item cls-${cls}`, for: id });
    const cb = el('input', { type: 'checkbox', id, 'data-cls': cls });
    cb.checked = !hiddenClasses.has(cls);
    cb.addEventListener('change', () => {
      if (cb.checked) hiddenClasses.delete(cls);
      else hiddenClasses.add(cls);
      root.classList.toggle(`hide-${cls}`, !cb.checked);
    });
    label.append(cb, el('span', { class: 'swatch', 'aria-hidden': 'true' }), document.createTextNode(classLabel(cls)));
    legendEl.append(label);
  }
}

// ---------------------------------------------------------------- linking

function markOnly(selector: string, cls: string, id: string | undefined): void {
  for (const e of document.querySelectorAll(`${selector}.${cls}`)) e.classList.remove(cls);
  if (!id) return;
  for (const e of document.querySelectorAll(
    `${selector}[data-${selector === '.region' ? 'id' : 'region'}="${CSS.escape(id)}"]`,
  ))
    e.classList.add(cls);
}

export function select(id: string | undefined, scroll: boolean): void {
  selectedId = id;
  markOnly('.region', 'selected', id);
  markOnly('.md-block', 'selected', id);
  editing.setSelected(id);
  outline.select(id, state.pages, scroll);
  if (id && scroll && !root.classList.contains('source-outline')) {
    // Where the view last scrolled to on its own (the end-to-end test reads it).
    root.dataset.scrolledTo = `${id}@${Date.now()}`;
    // A scroll of the view's own: the editor is not scrolled after it (scroll sync).
    scrollSync.selfScroll(1000);
    // One smooth scroll only: a second scrollIntoView (even of a hidden block) cancels the first.
    const target =
      document.querySelector(`.region[data-id="${CSS.escape(id)}"]`) ??
      (showMd ? document.querySelector(`.md-block[data-region="${CSS.escape(id)}"]`) : null);
    target?.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
  }
  const r = id ? regionOf(id) : undefined;
  const classSelect = document.getElementById('class-select') as HTMLSelectElement;
  classSelect.disabled = !r;
  if (r) classSelect.value = r.cls;
  for (const b of ['reparse-btn', 'delete-btn']) (document.getElementById(b) as HTMLButtonElement).disabled = !r;
}

let hoverTimer: ReturnType<typeof setTimeout> | undefined;
function hover(id: string, on: boolean): void {
  markOnly('.md-block', 'hovered', on ? id : undefined);
  clearTimeout(hoverTimer);
  // A short delay so sweeping the mouse across boxes does not jump the editor at every box; and
  // none while the view scrolls under a still pointer (scroll sync moves the editor then).
  if (on && regionOf(id)?.linked && !scrollSync.scrolling)
    hoverTimer = setTimeout(() => {
      if (!scrollSync.scrolling) post({ type: 'reveal', regionId: id, focus: false });
    }, 250);
}

function reveal(id: string, focus: boolean): void {
  select(id, false);
  clearTimeout(hoverTimer);
  post({ type: 'reveal', regionId: id, focus });
}

/** Next / previous region in reading order, across pages (the `.md` editor follows). */
function stepRegion(dir: 1 | -1): void {
  const all = [...document.querySelectorAll<HTMLElement>('section.page .region[data-id]')].filter(
    (e) => e.offsetParent !== null,
  );
  if (!all.length) return;
  const i = selectedId ? all.findIndex((e) => e.dataset.id === selectedId) : -1;
  const next = all[i < 0 ? (dir > 0 ? 0 : all.length - 1) : Math.min(all.length - 1, Math.max(0, i + dir))]!;
  const id = next.dataset.id!;
  select(id, true);
  next.focus({ preventScroll: true });
  if (regionOf(id)?.linked) post({ type: 'reveal', regionId: id, focus: false });
}

/** The page most visible in the viewport. */
function pageInView(): PageView | undefined {
  let best: PageView | undefined;
  let bestArea = 0;
  for (const sheet of document.querySelectorAll<HTMLElement>('section.page .sheet')) {
    const r = sheet.getBoundingClientRect();
    const visible = Math.max(0, Math.min(r.bottom, window.innerHeight) - Math.max(r.top, 0));
    if (visible > bestArea) {
      bestArea = visible;
      best = state.pages.get(Number(sheet.dataset.page));
    }
  }
  return best;
}

function setShowMd(on: boolean): void {
  showMd = on;
  (document.getElementById('show-md') as HTMLInputElement).checked = on;
  root.classList.toggle('hide-md', !on);
  saveState();
}

function onRegionKey(ev: KeyboardEvent, id: string): boolean {
  if (ev.key === 'Enter') {
    reveal(id, true);
  } else if (ev.key === ' ') {
    select(id, false);
  } else return false;
  ev.preventDefault();
  return true;
}

// ---------------------------------------------------------------- toolbar

function setupToolbar(): void {
  const classSelect = document.getElementById('class-select') as HTMLSelectElement;
  for (const c of EDITABLE_CLASSES) classSelect.append(el('option', { value: c }, classLabel(c)));
  classSelect.addEventListener('change', () => {
    if (selectedId) editing.changeClass(selectedId, classSelect.value as RegionClass);
  });
  document.getElementById('reparse-btn')!.addEventListener('click', () => selectedId && editing.reparse(selectedId));
  document.getElementById('delete-btn')!.addEventListener('click', () => selectedId && editing.remove(selectedId));
  const drawBtn = document.getElementById('draw-btn') as HTMLButtonElement;
  drawBtn.addEventListener('click', () => editing.toggleDraw());
  const toggle = (id: string, cls: string) => {
    const cb = document.getElementById(id) as HTMLInputElement;
    cb.addEventListener('change', () => root.classList.toggle(cls, !cb.checked));
  };
  const mdBox = document.getElementById('show-md') as HTMLInputElement;
  mdBox.addEventListener('change', () => setShowMd(mdBox.checked));
  setShowMd(showMd);
  toggle('show-order', 'hide-order');
  document.getElementById('zoom-in')!.addEventListener('click', () => zoom.in());
  document.getElementById('zoom-out')!.addEventListener('click', () => zoom.out());
  document.getElementById('zoom-level')!.addEventListener('click', () => zoom.fit());
  document.getElementById('convert-btn')!.addEventListener('click', () => post({ type: 'convert' }));
  window.addEventListener('wheel', (e) => zoom.wheel(e), { passive: false });
  window.addEventListener('scroll', () => scheduleSharpen(), { passive: true });
  zoom.set(saved?.zoom ?? 1);
  const help = document.getElementById('help')!;
  document.getElementById('help-btn')!.addEventListener('click', () => help.toggleAttribute('hidden'));
  document.addEventListener('keydown', (ev) => {
    if (ev.target instanceof HTMLInputElement || ev.target instanceof HTMLSelectElement) return;
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (ev.key === '?') help.toggleAttribute('hidden');
    else if (ev.key === 'n' || ev.key === 'N') editing.toggleDraw();
    else if (ev.key === ']' || ev.key === 'j') stepRegion(1);
    else if (ev.key === '[' || ev.key === 'k') stepRegion(-1);
    else if (ev.key === '+' || ev.key === '=') zoom.in();
    else if (ev.key === '-' || ev.key === '_') zoom.out();
    else if (ev.key === '0') zoom.fit();
    else if (ev.key === 'm' || ev.key === 'M') setShowMd(!showMd);
    else if (ev.key === 'Enter' && editing.isDrawing) {
      // Drawing without a mouse: a box in the middle of the page in view, then arrows move it.
      const p = pageInView();
      if (p) editing.addAt(p);
    } else if (ev.key === 'Escape') {
      editing.cancel();
      help.setAttribute('hidden', '');
    }
  });
  select(undefined, false);
}

// ---------------------------------------------------------------- messages from the host

let newestVersion = -1;

function onHostMessage(raw: unknown): void {
  const m = parseHostMessage(raw);
  if (typeof m === 'string') {
    console.warn(`Folio preview: ignored a message: ${m}`);
    const notice = refusalNotice(raw, m);
    if (notice) setStatus(notice, 'error');
    return;
  }
  if (m.type !== 'init' && m.uri !== state.uri) return;
  if (isStale(m.version, newestVersion)) return;
  newestVersion = m.version;
  state.version = m.version;
  handle(m);
}

function handle(m: HostMessage): void {
  switch (m.type) {
    case 'init':
      root.dataset.inits = String(Number(root.dataset.inits ?? 0) + 1);
      state.uri = m.uri;
      state.pdfUri = m.pdfUri;
      state.converting = m.converting;
      saveState();
      root.classList.toggle('not-converted', !!m.notConverted);
      document.getElementById('not-converted')!.hidden = !m.notConverted;
      titleEl.textContent = m.title;
      state.pages = new Map(m.pages.map((p) => [p.page, p]));
      partials.reset(m.converting ? m.conversion : undefined, state.pages.keys());
      pagesEl.replaceChildren();
      inlineImages.clear();
      renderPagesSoon(m.pages);
      updateLegend();
      sourceNote = m.sourceNote;
      outline.update(sourceKindOf(m.pdfUri), state.pages, sourceNote);
      outlineShown();
      root.dataset.converting = String(m.converting);
      if (m.converting) delete root.dataset.finishedAt;
      scheduleSharpen();
      progress = m.progress;
      showProgress();
      if (m.converting) break;
      if (m.notConverted) setStatus('Not converted yet');
      else setStatus(`${m.pages.length} page${m.pages.length === 1 ? '' : 's'}`);
      break;
    case 'page':
      partials.final(m.page.page);
      state.pages.set(m.page.page, m.page);
      renderPage(m.page);
      updateLegend();
      updateOutline();
      showProgress();
      break;
    case 'progress':
      progress = { done: m.done, total: m.total };
      showProgress();
      break;
    case 'scrollTo':
      // In draw mode the view holds still: the user is about to drag on the page in view, and a
      // jump to where the editor is would put the new box on another page.
      // An outline alone has no pages to scroll (the cursor selects its entries instead).
      if (!editing.isDrawing && !root.classList.contains('source-outline')) scrollSync.follow(m.regionId, m.fraction);
      break;
    case 'partial':
      // Stale ones (another conversion, a page already in, an older seq) are dropped.
      if (partials.accept(m)) renderPartial(m.page, m.markdown);
      showProgress();
      break;
    case 'highlight':
      select(m.regionId, m.reveal && !editing.isDrawing);
      break;
    case 'status':
      if (m.regionId) {
        if (m.busy) busy.add(m.regionId);
        else busy.delete(m.regionId);
        document.querySelector(`.region[data-id="${CSS.escape(m.regionId)}"]`)?.classList.toggle('busy', !!m.busy);
        // The end of a reparse carries no text: keep its result message.
        if (!m.busy && !m.text) break;
      }
      setStatus(m.text, m.level);
      break;
    case 'finished':
      // A page still being written when the conversion stopped (cancel) never arrives: remove it.
      for (const n of partials.finish()) document.getElementById(`page-${n}`)?.remove();
      state.converting = false;
      progress = undefined;
      showProgress();
      root.dataset.finishedAt = String(Date.now());
      root.dataset.converting = 'false';
      scheduleSharpen();
      setStatus(m.cancelled ? `Conversion cancelled after ${m.pagesDone} page(s)` : `Converted ${m.pagesDone} page(s)`);
      break;
  }
}

window.addEventListener('message', (ev: MessageEvent) => onHostMessage(ev.data));
setupToolbar();
if (state.uri) post({ type: 'ready', scriptMs });
