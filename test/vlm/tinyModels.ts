/**
 * Test helper: generates the tiny fixture models (scripts/fixtures) into a fresh temp folder.
 * The fixtures are real ONNX files of the real export's format with tiny random weights.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeTinyModels } from '../../scripts/fixtures/makeTinyModels';

export function tinyModels(): { root: string; dirs: ReturnType<typeof makeTinyModels>; cleanup: () => void } {
  const root = mkdtempSync(join(tmpdir(), 'folio-tiny-'));
  const dirs = makeTinyModels(root);
  return { root, dirs, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}
