/**
 * A stand-in for the `vscode` module in plain Node tests of extension modules that use only
 * `Uri` and `workspace.getWorkspaceFolder` (the real module exists only inside VS Code's
 * extension host). It mirrors the real behaviour of what it offers: `Uri.file` / `Uri.joinPath`
 * join and normalise with posix rules as vscode-uri does, `fsPath` of a `file:` URI is its path
 * (Linux), and `getWorkspaceFolder` returns the folder that contains the URI. Anything else is
 * absent, so a module that needs more fails loudly instead of testing a guess.
 *
 * Import it before the module under test: it answers `require('vscode')` from then on.
 */
import Module from 'node:module';
import { posix } from 'node:path';

export class FakeUri {
  private constructor(
    readonly scheme: string,
    readonly path: string,
  ) {}
  static file(p: string): FakeUri {
    return new FakeUri('file', posix.normalize(p));
  }
  static parse(s: string): FakeUri {
    const u = new URL(s);
    return new FakeUri(u.protocol.slice(0, -1), decodeURIComponent(u.pathname));
  }
  static joinPath(base: FakeUri, ...segments: string[]): FakeUri {
    return new FakeUri(base.scheme, posix.join(base.path, ...segments));
  }
  get fsPath(): string {
    return this.path;
  }
  toString(): string {
    return `${this.scheme}://${this.path}`;
  }
}

/** The workspace folders `getWorkspaceFolder` knows; tests set them. */
export const workspaceFolders: { uri: FakeUri; name: string; index: number }[] = [];

const fake = {
  Uri: FakeUri,
  workspace: {
    getWorkspaceFolder(uri: FakeUri) {
      return workspaceFolders.find(
        (f) => f.uri.scheme === uri.scheme && (uri.path === f.uri.path || uri.path.startsWith(f.uri.path + '/')),
      );
    },
  },
};

const FAKE_ID = '/__folio_test__/vscode.js';
const M = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
const resolve = M._resolveFilename;
M._resolveFilename = function (this: unknown, request: string, ...rest: unknown[]): string {
  return request === 'vscode' ? FAKE_ID : resolve.call(this, request, ...rest);
};
require.cache[FAKE_ID] = { id: FAKE_ID, filename: FAKE_ID, loaded: true, exports: fake } as unknown as NodeJS.Module;
