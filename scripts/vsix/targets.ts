/**
 * The platforms Folio ships a VSIX for, and which native binaries each one holds (issue 9).
 * One table, read by the packager (scripts/vsix/packageVsix.main.ts) to write each target's
 * ignore file and by the test (test/package/vsix.test.ts) to check each VSIX's file list.
 *
 * Native parts: onnxruntime-node ships every platform's binaries inside one package
 * (`bin/napi-v6/<os>/<cpu>/`); sharp and @napi-rs/canvas ship one optional package per platform,
 * which npm installs for another platform with `--os/--cpu/--libc`.
 */

export type TargetName = 'linux-x64' | 'linux-arm64' | 'darwin-x64' | 'darwin-arm64' | 'win32-x64';

export interface VsixTarget {
  /** vsce's `--target` and the VSIX's TargetPlatform. */
  name: TargetName;
  os: 'linux' | 'darwin' | 'win32';
  cpu: 'x64' | 'arm64';
  /** npm's `--libc` (Linux only): VS Code's Linux builds are glibc; musl is `alpine-*`, not shipped. */
  libc?: 'glibc';
  /**
   * onnxruntime-node version, when not the project's own. 1.24 and later ship no darwin/x64
   * binaries (microsoft/onnxruntime#27961); 1.23.2 is the last release that does.
   */
  onnxruntime?: string;
  /** sharp's platform packages: the binding, and libvips where it is separate (not on Windows). */
  sharp: string[];
  /** The @napi-rs/canvas binary package (pdf.js renders pages with it). */
  canvas: string;
  /** The onnxruntime shared library beside the binding (its name differs per OS). */
  ortLibrary: RegExp;
}

export const TARGETS: readonly VsixTarget[] = [
  {
    name: 'linux-x64',
    os: 'linux',
    cpu: 'x64',
    libc: 'glibc',
    sharp: ['@img/sharp-linux-x64', '@img/sharp-libvips-linux-x64'],
    canvas: '@napi-rs/canvas-linux-x64-gnu',
    ortLibrary: /^libonnxruntime\.so\.1$/,
  },
  {
    name: 'linux-arm64',
    os: 'linux',
    cpu: 'arm64',
    libc: 'glibc',
    sharp: ['@img/sharp-linux-arm64', '@img/sharp-libvips-linux-arm64'],
    canvas: '@napi-rs/canvas-linux-arm64-gnu',
    ortLibrary: /^libonnxruntime\.so\.1$/,
  },
  {
    name: 'darwin-x64',
    os: 'darwin',
    cpu: 'x64',
    onnxruntime: '1.23.2',
    sharp: ['@img/sharp-darwin-x64', '@img/sharp-libvips-darwin-x64'],
    canvas: '@napi-rs/canvas-darwin-x64',
    ortLibrary: /^libonnxruntime\.[\d.]+\.dylib$/,
  },
  {
    name: 'darwin-arm64',
    os: 'darwin',
    cpu: 'arm64',
    sharp: ['@img/sharp-darwin-arm64', '@img/sharp-libvips-darwin-arm64'],
    canvas: '@napi-rs/canvas-darwin-arm64',
    ortLibrary: /^libonnxruntime\.[\d.]+\.dylib$/,
  },
  {
    name: 'win32-x64',
    os: 'win32',
    cpu: 'x64',
    sharp: ['@img/sharp-win32-x64'],
    canvas: '@napi-rs/canvas-win32-x64-msvc',
    ortLibrary: /^onnxruntime\.dll$/,
  },
];

export function targetByName(name: string): VsixTarget {
  const t = TARGETS.find((x) => x.name === name);
  if (!t) throw new Error(`unknown VSIX target "${name}": one of ${TARGETS.map((x) => x.name).join(', ')}`);
  return t;
}

/** Where each native part of a target lives inside the extension (paths relative to it). */
export function nativeDirs(t: VsixTarget): string[] {
  return [
    `node_modules/onnxruntime-node/bin/napi-v6/${t.os}/${t.cpu}/`,
    ...t.sharp.map((p) => `node_modules/${p}/`),
    `node_modules/${t.canvas}/`,
  ];
}

/**
 * The platform lines of a target's ignore file: re-include its native folders. They are appended
 * to the common allowlist in `.vscodeignore`, which re-includes no native binary itself.
 */
export function ignoreLines(t: VsixTarget): string {
  return [
    `# ${t.name}: its native binaries only (scripts/vsix/targets.ts).`,
    ...nativeDirs(t).map((d) => `!${d}**`),
    '',
  ].join('\n');
}

/** VSIX file name for a target. */
export function vsixName(t: VsixTarget): string {
  return `folio-${t.name}.vsix`;
}

/** A file that can only run on one platform: Node addons and shared libraries. */
export function isNativeFile(path: string): boolean {
  return /\.(node|dll|dylib|exe)$/i.test(path) || /\.so(\.\d+)*$/.test(path);
}
