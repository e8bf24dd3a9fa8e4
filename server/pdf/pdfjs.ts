/**
 * Loads pdf.js (`pdfjs-dist`, an ES module) into Folio's CommonJS bundles and points it at its
 * font, CMap and WASM assets, which stay in node_modules/pdfjs-dist (they are data files pdf.js
 * reads at run time, not code esbuild can bundle).
 *
 * pdf.js 6 targets Node ≥ 22.13. The CLI and the tests run on Node 20, where two built-ins are
 * missing: `Promise.withResolvers`, and `ArrayBuffer.prototype.transferToFixedLength` (without
 * it `getOperatorList` fails silently and `render()` never resolves). Both are polyfilled
 * before pdf.js is imported. VS Code's extension host has them already.
 */
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { deferSystemFonts } from './systemFonts';

type PdfjsModule = typeof import('pdfjs-dist/legacy/build/pdf.mjs');

function installPolyfills(): void {
  const P = Promise as unknown as { withResolvers?: unknown };
  if (typeof P.withResolvers !== 'function') {
    P.withResolvers = function withResolvers<T>() {
      let resolve!: (v: T | PromiseLike<T>) => void;
      let reject!: (e: unknown) => void;
      const promise = new Promise<T>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      return { promise, resolve, reject };
    };
  }
  const AB = ArrayBuffer.prototype as unknown as {
    transferToFixedLength?: (this: ArrayBuffer, n?: number) => ArrayBuffer;
    transfer?: (this: ArrayBuffer, n?: number) => ArrayBuffer;
  };
  if (typeof AB.transferToFixedLength !== 'function') {
    // A copy rather than a zero-copy transfer; pdf.js only needs the semantics.
    AB.transferToFixedLength = function (this: ArrayBuffer, n?: number): ArrayBuffer {
      const len = n ?? this.byteLength;
      const out = new ArrayBuffer(len);
      new Uint8Array(out).set(new Uint8Array(this, 0, Math.min(len, this.byteLength)));
      return out;
    };
  }
  if (typeof AB.transfer !== 'function') AB.transfer = AB.transferToFixedLength;
}

let loaded: Promise<PdfjsModule> | undefined;

/** The pdf.js module, imported once per thread. */
export function pdfjs(): Promise<PdfjsModule> {
  if (!loaded) {
    installPolyfills();
    deferSystemFonts(); // pdf.js loads the canvas, which would scan every installed font (systemFonts.ts)
    loaded = import('pdfjs-dist/legacy/build/pdf.mjs') as Promise<PdfjsModule>;
  }
  return loaded;
}

/** Folder of the installed pdfjs-dist package. */
export function pdfjsRoot(): string {
  return dirname(require.resolve('pdfjs-dist/package.json'));
}

/** The asset URLs every `getDocument` call needs (trailing slashes matter to pdf.js). */
export function pdfjsAssetOptions(): {
  standardFontDataUrl: string;
  cMapUrl: string;
  cMapPacked: true;
  wasmUrl: string;
} {
  const root = pdfjsRoot();
  const url = (sub: string) => pathToFileURL(join(root, sub)).href + '/';
  return {
    standardFontDataUrl: url('standard_fonts'),
    cMapUrl: url('cmaps'),
    cMapPacked: true,
    wasmUrl: url('wasm'),
  };
}
