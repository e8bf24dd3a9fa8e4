/**
 * The stdio MCP server the extension offers VS Code's agent mode (src/mcpProvider.ts): Folio's own
 * `dist/cli.js mcp <workspace folders>`, run by the editor's Node (`process.execPath` with
 * ELECTRON_RUN_AS_NODE, as vscode-languageclient runs the backend). Kept free of `vscode` so a
 * test can start exactly this command with the MCP SDK client.
 */
import { join } from 'node:path';

export const MCP_PROVIDER_ID = 'folio.mcp';

export interface McpServerSpec {
  label: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  version: string;
}

/** Undefined when no local folder is open: `folio mcp` needs at least one folder it may read. */
export function folioMcpServerSpec(
  extensionPath: string,
  folders: readonly string[],
  execPath: string,
  version: string,
): McpServerSpec | undefined {
  if (folders.length === 0) return undefined;
  return {
    label: 'Folio',
    command: execPath,
    args: [join(extensionPath, 'dist', 'cli.js'), 'mcp', ...folders],
    env: { ELECTRON_RUN_AS_NODE: '1' },
    version,
  };
}
