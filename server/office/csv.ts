// TODO-WIP
export function readCsv(..._a: unknown[]): never { throw new Error('not yet'); }
