/** An answer the client can act on: its HTTP status, a stable code, and words that say what to do. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly headers?: Record<string, string>,
    /** `detail` when docling-serve's own words are what clients test for ("Task not found."); else the message. */
    readonly detail?: string,
  ) {
    super(message);
  }
}
