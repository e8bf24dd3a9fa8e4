/**
 * The WebGPU adapter Folio reports (server/onnx/webgpuAdapter.ts: onnxruntime-node does not say)
 * and the default order's rule that a software Vulkan device is used only when asked for last.
 * The manifests are real Vulkan ICD manifest files written into a temp folder; the last test
 * loads a real session through SwiftShader.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeAdapter, softwareAdapterWarning, webgpuAdapterInfo } from '../../server/onnx/webgpuAdapter';
import { createSession } from '../../server/onnx/runtime';
import { hfParityDir } from '../../scripts/fixtures/hfParity';
import { useSoftwareWebGpu } from '../helpers/softwareWebGpu';

const dir = mkdtempSync(join(tmpdir(), 'folio-icd-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function manifest(name: string, lib: string): string {
  const f = join(dir, name);
  writeFileSync(f, JSON.stringify({ file_format_version: '1.0.0', ICD: { library_path: lib, api_version: '1.3.0' } }));
  return f;
}

test('SwiftShader named by VK_ICD_FILENAMES is a software Vulkan device', () => {
  const a = webgpuAdapterInfo({ VK_ICD_FILENAMES: manifest('sw.json', './libvk_swiftshader.so') }, 'linux');
  assert.deepEqual(
    { name: a.name, vendor: a.vendor, software: a.software, backend: a.backend, source: a.source },
    { name: 'SwiftShader', vendor: 'Google', software: true, backend: 'vulkan', source: 'VK_ICD_FILENAMES' },
  );
  assert.equal(describeAdapter(a), 'Vulkan, SwiftShader (Google), a software device (VK_ICD_FILENAMES)');
  assert.match(softwareAdapterWarning(a)!, /software Vulkan device \(SwiftShader\)/);
});

test('a GPU driver with its device wins over a software one; without its device, or lavapipe alone, there is no adapter', () => {
  const sw = manifest('sw2.json', 'libvk_swiftshader.so');
  const nv = manifest('nv.json', 'libGLX_nvidia.so.0');
  const gpu = () => true;
  const a = webgpuAdapterInfo({ VK_ICD_FILENAMES: `${sw}:${nv}` }, 'linux', gpu);
  assert.deepEqual([a.name, a.software], ['NVIDIA', false]);
  assert.equal(softwareAdapterWarning(a), undefined);
  // Mesa's drivers are often installed without their GPU (as on this machine): no render node, no device.
  const noGpu = () => false;
  const mesa = manifest('intel.json', '/usr/lib/x86_64-linux-gnu/libvulkan_intel.so');
  const lvp = manifest('lvp.json', '/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so');
  const none = webgpuAdapterInfo({ VK_DRIVER_FILES: `${mesa}:${lvp}` }, 'linux', noGpu);
  assert.deepEqual([none.none, none.software], [true, undefined]);
  assert.deepEqual([webgpuAdapterInfo({ VK_DRIVER_FILES: mesa }, 'linux', gpu).name], ['ANV']);
  const both = webgpuAdapterInfo({ VK_ICD_FILENAMES: `${nv}:${sw}` }, 'linux', noGpu);
  assert.deepEqual(
    [both.name, both.software],
    ['SwiftShader', true],
    'without the NVIDIA device only SwiftShader is left',
  );
  const folder = webgpuAdapterInfo({ VK_DRIVER_FILES: dir }, 'linux', gpu);
  assert.equal(folder.name, 'ANV', 'a folder in VK_DRIVER_FILES is read for its manifests, in name order');
});

test('Windows and macOS: the API only, the device kind not claimed', () => {
  assert.deepEqual(
    [webgpuAdapterInfo({}, 'win32').backend, webgpuAdapterInfo({}, 'win32').software],
    ['d3d12', undefined],
  );
  assert.deepEqual(
    [webgpuAdapterInfo({}, 'darwin').backend, webgpuAdapterInfo({}, 'darwin').software],
    ['metal', undefined],
  );
});

test('on SwiftShader the default order skips WebGPU for the CPU; asked for alone, WebGPU loads', async () => {
  useSoftwareWebGpu();
  const model = join(hfParityDir(), 'onnx', 'embed_tokens.onnx');
  const fallback = await createSession(model, { providers: ['cuda', 'webgpu', 'cpu'] });
  assert.equal(fallback.provider, 'cpu');
  assert.match(
    fallback.failures.find((f) => f.provider === 'webgpu')!.reason,
    /software Vulkan device \(SwiftShader\)/,
  );
  await fallback.session.release();
  const alone = await createSession(model, { providers: ['webgpu'] });
  assert.equal(alone.provider, 'webgpu');
  await alone.session.release();
});
