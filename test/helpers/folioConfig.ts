/**
 * Settings as `FolioContext.config` (src/context.ts) reads them from VS Code, for tests of the
 * extension's request builder (src/convertClient.ts) outside VS Code; `over` changes some.
 */
import type { FolioConfig } from '../../src/context';

export function folioConfig(over: Partial<FolioConfig> = {}): FolioConfig {
  return {
    outputDirectory: '',
    renderScale: 1.5,
    keepPageHeaders: true,
    keepHiddenText: false,
    ocr: 'never',
    engine: 'vlm',
    modelsDir: '/models',
    providers: ['cpu'],
    layoutPrior: 'on',
    speculation: 'page',
    outputFormat: 'markdown',
    images: 'link',
    limits: { documentSeconds: 60, pageMemoryMb: 64, maxPages: 3, maxCells: 1000 },
    ...over,
  };
}
