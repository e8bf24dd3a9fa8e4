/** SHA-256 of bytes or of a string's UTF-8, as hex: the one helper the extension and the CLI share. */
import { createHash } from 'node:crypto';

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}
