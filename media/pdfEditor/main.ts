/**
 * The PDF viewer's webview: pages as paper (edge and shadow on the editor background, in light
 * and dark themes), fit to the width by default, zoom with the buttons, Ctrl+wheel and the
 * keyboard (+, −, 0), region boxes placed in fractions of the page so they stay aligned at every
 * zoom, and a "Convert to Markdown" button. PDF-derived strings are set as text only.
 */
import { isToViewer, type FromViewer, type ViewerPage } from './messages';

declare function acquireVsCodeApi(): { postMessage(m: FromViewer): void };
const vscode = acquireVsCodeApi();

const pagesEl = document.getElementById('pages')!;
const statusEl = document.getElementById('status')!;
const zoomLabel = document.getElementById('zoom-level')!;
const boxesToggle = document.getElementById('show-boxes') as HTMLInputElement;

const MIN_ZOOM = 0.25;
const MAX_ZOOM = 4;
/** 1 = fit to width; the page width is the view's width times this. */
let zoom = 1;

function applyZoom(next: number, anchorY?: number): void {
  const old = zoom;
  zoom = Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, Math.round(next * 100) / 100));
  document.documentElement.style.setProperty('--folio-zoom', String(zoom));
  zoomLabel.textContent = `${Math.round(zoom * 100)}%`;
  // Keep the point under the cursor (or the view's middle) in place.
  const y = anchorY ?? window.innerHeight / 2;
  const docY = window.scrollY + y;
  window.scrollTo({ top: (docY * zoom) / old - y });
}

function render(pages: ViewerPage[], converted: boolean): void {
  pagesEl.replaceChildren();
  boxesToggle.checked = converted;
  document.body.classList.toggle('show-boxes', converted);
  for (const p of pages) {
    const sheet = document.createElement('div');
    sheet.className = 'sheet';
    sheet.dataset.page = String(p.page);
    sheet.style.aspectRatio = `${p.width} / ${p.height}`;
    sheet.setAttribute('role', 'img');
    sheet.setAttribute('aria-label', `Page ${p.page}`);
    if (p.image) {
      const img = document.createElement('img');
      img.src = p.image;
      img.alt = `Page ${p.page}`;
      img.loading = 'lazy';
      img.draggable = false;
      sheet.append(img);
    }
    for (const r of p.regions) {
      const box = document.createElement('div');
      box.className = `box cls-${r.cls.replace(/[^a-z_]/g, '')}`;
      box.style.left = `${r.x * 100}%`;
      box.style.top = `${r.y * 100}%`;
      box.style.width = `${r.w * 100}%`;
      box.style.height = `${r.h * 100}%`;
      box.title = r.cls;
      sheet.append(box);
    }
    const label = document.createElement('div');
    label.className = 'page-number';
    label.textContent = String(p.page);
    const wrap = document.createElement('div');
    wrap.className = 'sheet-wrap';
    wrap.append(sheet, label);
    pagesEl.append(wrap);
  }
}

window.addEventListener('message', (e: MessageEvent) => {
  const m: unknown = e.data;
  if (!isToViewer(m)) return;
  if (m.type === 'status') statusEl.textContent = m.text;
  else {
    render(m.pages, m.converted);
    statusEl.textContent = `${m.pages.length} page${m.pages.length === 1 ? '' : 's'}`;
  }
});

document.getElementById('convert-btn')!.addEventListener('click', () => vscode.postMessage({ type: 'convert' }));
document.getElementById('zoom-in')!.addEventListener('click', () => applyZoom(zoom * 1.25));
document.getElementById('zoom-out')!.addEventListener('click', () => applyZoom(zoom / 1.25));
document.getElementById('zoom-fit')!.addEventListener('click', () => applyZoom(1));
boxesToggle.addEventListener('change', () => document.body.classList.toggle('show-boxes', boxesToggle.checked));
window.addEventListener(
  'wheel',
  (e) => {
    if (!e.ctrlKey) return;
    e.preventDefault();
    applyZoom(zoom * (e.deltaY < 0 ? 1.1 : 1 / 1.1), e.clientY);
  },
  { passive: false },
);
window.addEventListener('keydown', (e) => {
  if (e.target instanceof HTMLInputElement) return;
  if (e.key === '+' || e.key === '=') applyZoom(zoom * 1.25);
  else if (e.key === '-' || e.key === '_') applyZoom(zoom / 1.25);
  else if (e.key === '0') applyZoom(1);
  else return;
  e.preventDefault();
});

applyZoom(1);
vscode.postMessage({ type: 'ready' });
