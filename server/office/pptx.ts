// TODO-WIP
export function readPptx(..._a: unknown[]): never { throw new Error('not yet'); }
