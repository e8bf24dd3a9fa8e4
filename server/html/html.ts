export function readHtml(..._a: unknown[]): never { throw new Error('not yet'); }
