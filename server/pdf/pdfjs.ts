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
import { startupMark } from '../util/startupTrace';

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

/**
 * Built-ins that pdf.js's legacy build replaces, on the whole thread, with core-js versions written
 * in JavaScript, to fix edge cases neither pdf.js nor Folio meets (V8's error on `push` to an array
 * whose length is read-only; JSON.parse's `context.source`; JSON.stringify of `JSON.rawJSON`). The
 * JavaScript `push` and `JSON.parse` made every push and every parse on the thread slower, pdf.js's
 * own included (issue 22, start-up), so the engine's own versions are put back after loading.
 * What core-js only adds (iterator helpers, Set methods, base64) stays.
 */
function keepBuiltins(): () => void {
  const push = Array.prototype.push;
  const { parse, stringify } = JSON;
  return () => {
    if (Array.prototype.push !== push) Object.defineProperty(Array.prototype, 'push', { value: push });
    if (JSON.parse !== parse) Object.defineProperty(JSON, 'parse', { value: parse });
    if (JSON.stringify !== stringify) Object.defineProperty(JSON, 'stringify', { value: stringify });
  };
}

/**
 * The minified builds: the same code as pdf.mjs and pdf.worker.mjs in half the text, which V8
 * parses ~20 ms faster on every start of a thread that converts (issue 22, start-up). The VSIX
 * ships these two (.vscodeignore). Typed as pdf.mjs, whose declarations they share.
 */
const PDFJS = 'pdfjs-dist/legacy/build/pdf.min.mjs';
const PDFJS_WORKER = 'pdfjs-dist/legacy/build/pdf.worker.min.mjs';

let loaded: Promise<PdfjsModule> | undefined;

/**
 * The pdf.js module, imported once per thread, with its worker module: pdf.js runs that "worker"
 * in the same thread (Node has no web workers), and finds it loaded through `globalThis.pdfjsWorker`
 * instead of importing it on the first `getDocument`.
 */
export function pdfjs(): Promise<PdfjsModule> {
  if (!loaded) {
    installPolyfills();
    deferSystemFonts(); // pdf.js loads the canvas, which would scan every installed font (systemFonts.ts)
    const restore = keepBuiltins();
    loaded = Promise.all([import(PDFJS) as Promise<PdfjsModule>, import(PDFJS_WORKER) as Promise<unknown>]).then(
      ([lib, worker]) => {
        restore();
        startupMark('pdfjs:loaded');
        (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = worker;
        return lib;
      },
      (e: unknown) => {
        restore();
        throw e;
      },
    );
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
