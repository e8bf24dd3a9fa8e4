/**
 * Builds one VSIX per platform (issue 9): `folio-<target>.vsix` in the repository root.
 *
 *   node out/scripts/scripts/vsix/packageVsix.main.js <target>... | --all   [--out DIR]
 *   npm run package          linux-x64 (what the e2e tests install)
 *   npm run package:all      linux-x64, linux-arm64, darwin-x64, darwin-arm64, win32-x64
 *
 * dist/ must be built first (the npm scripts do it). The host's own target is packaged from the
 * checkout (its node_modules already hold exactly that platform's binaries): fast. Any other
 * target is staged in `.folio-cache/vsix/<target>/` (gitignored): the extension's files are
 * copied there and its runtime dependencies installed with npm's `--os/--cpu/--libc`, so sharp's
 * and @napi-rs/canvas's optional packages are that platform's. In both cases the ignore file is
 * `.vscodeignore` (the common allowlist) plus the target's native folders (targets.ts).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { repoRoot } from '../../test/helpers/corpus';
import { ignoreLines, nativeDirs, TARGETS, targetByName, vsixName, type VsixTarget } from './targets';
import { messageOf } from '../../common/errorKinds';

/** Files of the checkout a VSIX is built from (the rest comes from node_modules). */
const EXTENSION_FILES = [
  'README.md',
  'LICENSE',
  'LICENSE.md',
  'CHANGELOG.md',
  '.npmrc',
  'package-lock.json',
  'dist',
  'media',
];

/** The child npm must not read the npm_* variables of an `npm run` around this script. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k)) env[k] = v;
  return env;
}

function run(cmd: string, args: string[], cwd: string): void {
  const r = spawnSync(cmd, args, {
    cwd,
    env: cleanEnv(),
    stdio: ['ignore', 'inherit', 'inherit'],
    timeout: 10 * 60_000,
  });
  if (r.error) throw new Error(`${cmd} ${args.join(' ')}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} (in ${cwd}) exited ${r.status}`);
}

/** Whether this checkout's node_modules can give the target's VSIX as they are. */
function isHost(repo: string, t: VsixTarget): boolean {
  return (
    t.os === process.platform &&
    t.cpu === process.arch &&
    !t.onnxruntime &&
    nativeDirs(t).every((d) => existsSync(join(repo, d)))
  );
}

/** The manifest the staging folder installs from: runtime dependencies only. */
function stagingManifest(repo: string, t: VsixTarget): string {
  const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as Record<string, unknown> & {
    dependencies: Record<string, string>;
  };
  delete pkg.devDependencies;
  delete pkg.scripts;
  delete pkg.overrides;
  if (t.onnxruntime) pkg.dependencies = { ...pkg.dependencies, 'onnxruntime-node': t.onnxruntime };
  return JSON.stringify(pkg, null, 2) + '\n';
}

function stage(repo: string, t: VsixTarget, dir: string): void {
  mkdirSync(dir, { recursive: true });
  const manifest = stagingManifest(repo, t);
  for (const f of EXTENSION_FILES) {
    rmSync(join(dir, f), { recursive: true, force: true });
    if (existsSync(join(repo, f))) cpSync(join(repo, f), join(dir, f), { recursive: true });
  }
  writeFileSync(join(dir, 'package.json'), manifest);
  // Reinstall only when the dependencies or the lock changed (the stamp lives in node_modules).
  const lock = existsSync(join(repo, 'package-lock.json')) ? readFileSync(join(repo, 'package-lock.json')) : '';
  const stamp = createHash('sha256').update(manifest).update(lock).update(t.name).digest('hex');
  const stampFile = join(dir, 'node_modules', '.folio-stage');
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) return;
  rmSync(join(dir, 'node_modules'), { recursive: true, force: true });
  const platform = [`--os=${t.os}`, `--cpu=${t.cpu}`, ...(t.libc ? [`--libc=${t.libc}`] : [])];
  process.stderr.write(`package: installing ${t.name} runtime dependencies (npm install ${platform.join(' ')})\n`);
  // --ignore-scripts: onnxruntime-node's would download CUDA binaries (and for another OS at that).
  run(
    'npm',
    ['install', ...platform, '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'],
    dir,
  );
  const missing = nativeDirs(t).filter((d) => !existsSync(join(dir, d)));
  if (missing.length > 0)
    throw new Error(
      `${t.name}: npm installed no ${missing.join(', ')} in ${dir}; is that version published for this platform? (npm view <package> versions)`,
    );
  writeFileSync(stampFile, stamp);
}

function packageTarget(repo: string, t: VsixTarget, outDir: string): string {
  const cache = join(repo, '.folio-cache', 'vsix');
  mkdirSync(cache, { recursive: true });
  const ignoreFile = join(cache, `${t.name}.vscodeignore`);
  writeFileSync(ignoreFile, readFileSync(join(repo, '.vscodeignore'), 'utf8') + '\n' + ignoreLines(t));
  let cwd = repo;
  if (!isHost(repo, t)) {
    cwd = join(cache, t.name);
    stage(repo, t, cwd);
  }
  const out = join(outDir, vsixName(t));
  const vsce = join(repo, 'node_modules', '@vscode', 'vsce', 'vsce');
  const t0 = Date.now();
  run(
    process.execPath,
    [
      vsce,
      'package',
      '--target',
      t.name,
      '--ignoreFile',
      ignoreFile,
      '--allow-missing-repository',
      '--skip-license',
      '--out',
      out,
    ],
    cwd,
  );
  process.stderr.write(
    `package: ${vsixName(t)} ${(statSync(out).size / 2 ** 20).toFixed(1)} MiB in ${((Date.now() - t0) / 1000).toFixed(0)} s${cwd === repo ? '' : ` (staged in ${cwd})`}\n`,
  );
  return out;
}

function main(): void {
  const args = process.argv.slice(2);
  const repo = repoRoot();
  const oi = args.indexOf('--out');
  const outDir = oi >= 0 ? resolve(args[oi + 1]) : repo;
  const names = args.includes('--all')
    ? TARGETS.map((t) => t.name)
    : args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--out');
  if (names.length === 0) throw new Error('usage: packageVsix.main.js <target>... | --all [--out DIR]');
  if (!existsSync(join(repo, 'dist', 'extension.js')))
    throw new Error(`${join(repo, 'dist')} is not built: run \`node esbuild.mjs --dist-only\` first`);
  mkdirSync(outDir, { recursive: true });
  for (const n of names) packageTarget(repo, targetByName(n), outDir);
}

try {
  main();
} catch (e) {
  console.error(`package: ${messageOf(e)}`);
  process.exitCode = 1;
}
