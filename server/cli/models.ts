/** `folio models …` — placeholder until the model manager (server/models) lands; replace this file. */
export async function runModelsCommand(argv: string[]): Promise<number> {
  process.stderr.write(`folio: models ${argv.join(' ')}: the model manager is not part of this build yet\n`);
  return 2;
}
