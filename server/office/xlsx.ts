// TODO-WIP
export function readXlsx(..._a: unknown[]): never { throw new Error('not yet'); }
