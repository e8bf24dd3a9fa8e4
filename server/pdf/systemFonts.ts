/**
 * The installed fonts, loaded when a page is first rendered instead of when pdf.js loads.
 *
 * @napi-rs/canvas (pdf.js's canvas in Node, loaded by pdf.js itself) scans every installed font
 * as soon as it is loaded: 0.75 s with the 216 font files of the test machine, more than the rest
 * of a one-page conversion (issue 22, start-up). Only a render can use them — pdf.js draws
 * embedded and standard fonts as paths (Node: `disableFontFace`), system fonts serve text whose
 * font is missing — and a born-digital page without pictures is never rendered. So the scan is
 * switched off at load with the canvas's own `DISABLE_SYSTEM_FONTS_LOAD`, and the first render
 * loads the fonts from the folders the canvas itself would have read: renders are unchanged.
 * A user who set DISABLE_SYSTEM_FONTS_LOAD keeps it: then no system font is ever loaded.
 */
import { homedir, platform } from 'node:os';
import { join } from 'node:path';

let deferred = false;

/** Before pdf.js (and with it the canvas) is loaded in this thread. */
export function deferSystemFonts(): void {
  if (process.env.DISABLE_SYSTEM_FONTS_LOAD !== undefined) return;
  process.env.DISABLE_SYSTEM_FONTS_LOAD = '1';
  deferred = true;
}

/** Before a render: the fonts the canvas would have loaded at start, once per thread. */
export function loadDeferredSystemFonts(): void {
  if (!deferred) return;
  deferred = false;
  // The folders @napi-rs/canvas 1.1.1's index.js passes to enableSystemFonts (its relative
  // `usr/local/share/fonts` on Linux included), so the same fonts are found.
  const home = homedir();
  const dirs: Record<string, string[]> = {
    win32: [join(home, 'AppData', 'Local', 'Microsoft', 'Windows', 'Fonts')],
    darwin: ['/Library/Fonts', join(home, 'Library', 'Fonts')],
    linux: [join('usr', 'local', 'share', 'fonts'), join(home, '.fonts')],
  };
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { GlobalFonts } = require('@napi-rs/canvas') as { GlobalFonts: { enableSystemFonts(dirs: string[]): void } };
  GlobalFonts.enableSystemFonts(dirs[platform()] ?? []);
}
