/**
 * docling-serve's `target` (JSON `target.kind`, form `target_type`): `inbody` (the default),
 * `zip`, and `presigned_url`, which needs artifact storage that Folio does not have. A
 * `presigned_url` target is answered as docling-serve 1.31 answers it when its storage is off
 * (docling_serve/policy.py, app.py: 422 and these very sentences): docling-client submits with
 * `presigned_url` first and falls back to `inbody` only on that answer.
 */
import { HttpError } from './httpError';

/** docling-serve 1.31's `detail` for a presigned_url target without artifact storage (convert routes). */
export const PRESIGNED_UNAVAILABLE =
  'Presigned URL target requires artifact storage to be configured and enabled on the server.';
/** docling-serve 1.31's `detail` for a presigned_url target on a chunk route. */
export const PRESIGNED_CHUNK = 'presigned_url target is not supported for chunk endpoints.';

/** True for a zip target, false for inbody; throws docling-serve's answer for any other. */
export function isZipTarget(v: unknown, type: 'convert' | 'chunk'): boolean {
  const t = Array.isArray(v) ? v[v.length - 1] : v;
  if (t === undefined || t === null || t === '' || t === 'inbody') return false;
  if (t === 'zip') return true;
  if (t === 'presigned_url')
    throw new HttpError(422, 'presigned_url_unavailable', type === 'chunk' ? PRESIGNED_CHUNK : PRESIGNED_UNAVAILABLE);
  throw new HttpError(400, 'bad_option', `target "${String(t).slice(0, 50)}" is not supported: use inbody or zip`);
}
