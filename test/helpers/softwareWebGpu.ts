/**
 * WebGPU for the tests on a machine without a GPU: Dawn (inside onnxruntime-node) on Chromium's
 * SwiftShader, a software Vulkan device. Debian's `chromium` (its `chromium-common` part) ships
 * `libvk_swiftshader.so` with its ICD manifest `vk_swiftshader_icd.json`; the Vulkan loader comes
 * from `libvulkan1` (scripts/test-deps.sh installs both). Mesa's lavapipe from this Debian is
 * refused by Dawn ("Vulkan shaderUniform*ArrayDynamicIndexing required").
 *
 * Only test processes are pointed at SwiftShader: `useSoftwareWebGpu()` sets `VK_ICD_FILENAMES`
 * (when not already set) and an `XDG_RUNTIME_DIR` in this process's environment, before the first
 * WebGPU session is created (the loader reads them when Dawn creates its Vulkan instance). A
 * user's run never gets them unless the user sets them.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where Debian's Chromium keeps SwiftShader's ICD manifest, read from dpkg; else the usual path. */
export function swiftShaderIcd(): string | undefined {
  for (const pkg of ['chromium-common', 'chromium']) {
    try {
      const files = execFileSync('dpkg', ['-L', pkg], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
      const icd = files.split('\n').find((f) => f.endsWith('/vk_swiftshader_icd.json'));
      if (icd && existsSync(icd)) return icd;
    } catch {
      // not a Debian system, or the package is not installed: try the next one
    }
  }
  const usual = '/usr/lib/chromium/vk_swiftshader_icd.json';
  return existsSync(usual) ? usual : undefined;
}

/**
 * The environment a child process needs for WebGPU on SwiftShader (merged over `base`), or a
 * reason it cannot have it (the test then fails with that reason: nothing is skipped).
 */
export function softwareWebGpuEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const icd = base.VK_ICD_FILENAMES || swiftShaderIcd();
  if (!icd)
    throw new Error(
      "WebGPU tests need Chromium's SwiftShader (vk_swiftshader_icd.json, Debian package chromium) and the Vulkan loader (libvulkan1): run scripts/test-deps.sh",
    );
  const runtimeDir = base.XDG_RUNTIME_DIR && existsSync(base.XDG_RUNTIME_DIR) ? base.XDG_RUNTIME_DIR : runtime();
  return { ...base, VK_ICD_FILENAMES: icd, XDG_RUNTIME_DIR: runtimeDir };
}

let runtimeDir: string | undefined;
function runtime(): string {
  // mkdtemp creates it with mode 0700, as XDG_RUNTIME_DIR must be.
  return (runtimeDir ??= mkdtempSync(join(tmpdir(), 'folio-xdg-')));
}

/** Points this process's WebGPU at SwiftShader (call before the first WebGPU session). */
export function useSoftwareWebGpu(): { icd: string } {
  const env = softwareWebGpuEnv();
  process.env.VK_ICD_FILENAMES = env.VK_ICD_FILENAMES;
  process.env.XDG_RUNTIME_DIR = env.XDG_RUNTIME_DIR;
  return { icd: env.VK_ICD_FILENAMES! };
}
