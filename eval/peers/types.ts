/** A converter compared with Folio: Folio itself (through its CLI) or a peer tool. */
import type { OutputFormat } from '../metrics/score';

export interface PeerOutput {
  /** The converter's output; undefined when it failed. */
  text?: string;
  error?: string;
  /** Wall time spent on this file (for batch converters: the file's share as they report it). */
  ms: number;
}

export interface BatchResult {
  outputs: Map<string, PeerOutput>;
  /** Wall time of the whole batch, process start-up included. */
  wallMs: number;
  /** Largest peak RSS of any process the batch ran, bytes (0 when unknown). */
  peakRss: number;
}

export interface Peer {
  name: string;
  /** Markdown is parsed as Markdown; plain text is only split into paragraphs. */
  format: OutputFormat;
  /** undefined when the tool runs here; else why not (and how to install it). */
  unavailable(): string | undefined;
  /** Convert every PDF; `jobs` files at once where the tool allows. Never throws for one bad file. */
  convertAll(pdfs: string[], workDir: string, opts: { jobs: number; timeoutMs: number }): Promise<BatchResult>;
}
