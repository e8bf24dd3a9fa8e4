// TODO-WIP
export function readMarkdown(..._a: unknown[]): never { throw new Error('not yet'); }
