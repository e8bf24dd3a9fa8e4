/**
 * Which device the WebGPU provider runs on, as far as Folio can tell.
 *
 * onnxruntime-node 1.30 does not report its WebGPU adapter: its JavaScript binding has no such
 * call (`env.webgpu.adapter` / `GPUDevice.adapterInfo` belong to the browser build, and Node has
 * no `navigator.gpu`), and at the most verbose log level the provider prints only the pointers of
 * the Dawn instance and device it created. So on Linux, where Dawn runs on Vulkan, Folio reads
 * what the Vulkan loader reads: its driver manifests (`VK_ICD_FILENAMES` / `VK_DRIVER_FILES`
 * when set, else the standard `icd.d` folders), and names the driver by its library. Dawn asks for
 * a high-performance adapter, so a hardware driver (NVIDIA, AMD, Intel, …) wins over a CPU one
 * when both are present; when only software drivers are, the adapter is software (SwiftShader:
 * WebGPU correct but much slower than the CPU provider). On Windows (D3D12) and macOS (Metal)
 * the adapter is not reported.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface WebGpuAdapterInfo {
  /** Graphics API Dawn uses on this platform. */
  backend: 'vulkan' | 'd3d12' | 'metal' | 'unknown';
  /** Driver (and so device family) name, e.g. "SwiftShader", "NVIDIA". */
  name: string;
  vendor?: string;
  /** True for a CPU (software) device; undefined where Folio cannot tell. */
  software: boolean | undefined;
  /** Where the answer comes from (for the log line). */
  source: string;
  /** True when no driver with a device Dawn accepts was found (Linux): WebGPU would find no adapter. */
  none?: boolean;
}

interface KnownDriver {
  match: RegExp;
  name: string;
  vendor: string;
  software: boolean;
  /** Device nodes a hardware driver needs (its manifest is installed whether or not the GPU is). */
  device?: 'nvidia' | 'dri';
}

/** Vulkan drivers by their library's file name. */
const DRIVERS: KnownDriver[] = [
  { match: /swiftshader/i, name: 'SwiftShader', vendor: 'Google', software: true },
  { match: /lvp|lavapipe/i, name: 'lavapipe', vendor: 'Mesa', software: true },
  { match: /nvidia/i, name: 'NVIDIA', vendor: 'NVIDIA', software: false, device: 'nvidia' },
  { match: /amdvlk/i, name: 'AMDVLK', vendor: 'AMD', software: false, device: 'dri' },
  { match: /radeon/i, name: 'RADV', vendor: 'AMD', software: false, device: 'dri' },
  { match: /intel/i, name: 'ANV', vendor: 'Intel', software: false, device: 'dri' },
  { match: /freedreno/i, name: 'Turnip', vendor: 'Qualcomm', software: false, device: 'dri' },
  { match: /panfrost/i, name: 'PanVK', vendor: 'Arm', software: false, device: 'dri' },
  { match: /broadcom/i, name: 'V3DV', vendor: 'Broadcom', software: false, device: 'dri' },
  { match: /virtio/i, name: 'Venus (virtio-gpu)', vendor: 'virtual', software: false, device: 'dri' },
  { match: /dzn/i, name: 'Dozen (D3D12)', vendor: 'Microsoft', software: false },
];

/** Vulkan driver manifests the loader would read, in its order. */
export function vulkanManifests(env: NodeJS.ProcessEnv = process.env): { files: string[]; source: string } {
  const listed = env.VK_DRIVER_FILES || env.VK_ICD_FILENAMES;
  if (listed) {
    const files = listed
      .split(':')
      .filter(Boolean)
      .flatMap((p) => (isDir(p) ? jsonFiles(p) : [p]));
    return { files, source: env.VK_DRIVER_FILES ? 'VK_DRIVER_FILES' : 'VK_ICD_FILENAMES' };
  }
  const home = env.HOME ?? '';
  const dirs = [
    ...(env.XDG_CONFIG_DIRS || '/etc/xdg').split(':'),
    '/etc',
    env.XDG_DATA_HOME || (home ? path.join(home, '.local', 'share') : ''),
    ...(env.XDG_DATA_DIRS || '/usr/local/share:/usr/share').split(':'),
  ]
    .filter(Boolean)
    .map((d) => path.join(d, 'vulkan', 'icd.d'));
  return { files: [...new Set(dirs)].flatMap(jsonFiles), source: 'the Vulkan driver manifests' };
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function jsonFiles(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => path.join(dir, f));
  } catch {
    return [];
  }
}

/** The driver library a manifest names ("" when the file is unreadable or not a manifest). */
function manifestLibrary(file: string): string {
  try {
    const m = JSON.parse(fs.readFileSync(file, 'utf8')) as { ICD?: { library_path?: unknown } };
    return typeof m.ICD?.library_path === 'string' ? m.ICD.library_path : '';
  } catch {
    return '';
  }
}

/** Whether the device nodes a hardware Vulkan driver needs exist (Mesa's drivers are often installed without their GPU). */
function deviceNodes(kind: 'nvidia' | 'dri'): boolean {
  try {
    if (kind === 'nvidia') return fs.existsSync('/dev/nvidiactl') || fs.existsSync('/dev/nvidia0');
    return fs.readdirSync('/dev/dri').some((f) => f.startsWith('renderD'));
  } catch {
    return false;
  }
}

/** What Folio can say about the adapter the WebGPU provider gets on this machine. */
export function webgpuAdapterInfo(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  hasDevice: (kind: 'nvidia' | 'dri') => boolean = deviceNodes,
): WebGpuAdapterInfo {
  if (platform === 'win32')
    return {
      backend: 'd3d12',
      name: 'a D3D12 adapter',
      software: undefined,
      source: 'not reported by onnxruntime-node',
    };
  if (platform === 'darwin')
    return {
      backend: 'metal',
      name: 'a Metal adapter',
      software: undefined,
      source: 'not reported by onnxruntime-node',
    };
  if (platform !== 'linux')
    return { backend: 'unknown', name: 'unknown', software: undefined, source: 'not reported by onnxruntime-node' };
  const { files, source } = vulkanManifests(env);
  const drivers = files
    .map((f) => ({ file: f, lib: manifestLibrary(f) }))
    .filter((d) => d.lib)
    .map((d) => DRIVERS.find((k) => k.match.test(path.basename(d.lib)) || k.match.test(path.basename(d.file))) ?? d)
    .filter((d) => !('device' in d) || !d.device || hasDevice(d.device))
    .map((d) =>
      'match' in d
        ? { name: d.name, vendor: d.vendor, software: d.software }
        : { name: path.basename(d.lib), vendor: undefined, software: undefined },
    );
  // Dawn asks for a high-performance adapter: any hardware (or unknown) driver before a CPU one;
  // Mesa's lavapipe is refused by Dawn, so it never is the adapter; a hardware driver without
  // its device nodes has no GPU to offer.
  const pick =
    drivers.find((d) => d.software === false) ??
    drivers.find((d) => d.software === undefined) ??
    drivers.find((d) => d.name === 'SwiftShader');
  if (!pick)
    return {
      backend: 'vulkan',
      name: 'no Vulkan device Dawn accepts',
      software: undefined,
      source,
      none: true,
    };
  return { backend: 'vulkan', name: pick.name, vendor: pick.vendor, software: pick.software, source };
}

/** One phrase for logs and the CLI: "Vulkan, SwiftShader (Google), a software device (VK_ICD_FILENAMES)". */
export function describeAdapter(a: WebGpuAdapterInfo): string {
  const kind = a.software === true ? 'a software device' : a.software === false ? 'a GPU' : 'device kind not reported';
  const api =
    a.backend === 'vulkan' ? 'Vulkan' : a.backend === 'd3d12' ? 'D3D12' : a.backend === 'metal' ? 'Metal' : '?';
  return `${api}, ${a.name}${a.vendor ? ` (${a.vendor})` : ''}, ${kind} (${a.source})`;
}

/** The page warning for a software adapter, else undefined. */
export function softwareAdapterWarning(a: WebGpuAdapterInfo): string | undefined {
  if (a.software !== true) return undefined;
  return `the VLM ran on WebGPU on a software Vulkan device (${a.name}), not a GPU: correct but much slower than the CPU provider (--providers cpu)`;
}
