/**
 * Where `folio convert` puts a document's picture crops, one rule for both runners (in-process
 * and through the queue), so their outputs link the same files: `<output stem>.assets/` beside
 * the output (`.docling`/`.chunks` left out of the stem), or none with `--images none`; with
 * `--images embed` the crops only pass through a temporary folder, flat.
 */
import { basename, extname } from 'node:path';
import { fitFileName } from '../../common/safeWrite';

/** The linked pictures folder's name (a single segment) beside the output file `out`. */
export function linkedAssetsFolder(out: string): string {
  return fitFileName(basename(out, extname(out)).replace(/\.(docling|chunks)$/, ''), '.assets');
}
