/**
 * Offers `folio mcp` to VS Code's agent mode through the MCP server definition API (VS Code
 * 1.101+: `vscode.lm.registerMcpServerDefinitionProvider`, with the provider id contributed in
 * package.json's `mcpServerDefinitionProviders`). The API is newer than `engines.vscode`'s
 * typings: it is looked up at run time (as src/lmTool.ts does for the tools API) and typed here
 * with the subset Folio uses, so older editors run the rest of Folio. The server reads only the
 * open workspace folders; the definition changes when they do.
 */
import * as vscode from 'vscode';
import type { FolioContext } from './context';
import { folioMcpServerSpec, MCP_PROVIDER_ID } from './mcpServerSpec';

/** The part of VS Code 1.101's API Folio uses (vscode.d.ts: lm.registerMcpServerDefinitionProvider, McpStdioServerDefinition). */
interface McpApi {
  lm: {
    registerMcpServerDefinitionProvider(
      id: string,
      provider: {
        onDidChangeMcpServerDefinitions?: vscode.Event<void>;
        provideMcpServerDefinitions(token: vscode.CancellationToken): vscode.ProviderResult<unknown[]>;
      },
    ): vscode.Disposable;
  };
  McpStdioServerDefinition: new (
    label: string,
    command: string,
    args?: string[],
    env?: Record<string, string | number | null>,
    version?: string,
  ) => unknown;
}

function mcpApi(): McpApi | undefined {
  const api = vscode as unknown as Partial<McpApi> & { lm?: Partial<McpApi['lm']> };
  return typeof api.lm?.registerMcpServerDefinitionProvider === 'function' &&
    typeof api.McpStdioServerDefinition === 'function'
    ? (api as McpApi)
    : undefined;
}

export function registerMcpProvider(ctx: FolioContext): void {
  const api = mcpApi();
  if (!api) {
    ctx.output.appendLine(
      "[info] this VS Code has no MCP server definition API (1.101+): Folio's MCP server is not offered to agent mode (README: MCP server)",
    );
    return;
  }
  const changed = new vscode.EventEmitter<void>();
  const version = String((ctx.extension.extension.packageJSON as { version?: unknown }).version ?? '0.0.0');
  ctx.push(
    changed,
    vscode.workspace.onDidChangeWorkspaceFolders(() => changed.fire()),
    api.lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, {
      onDidChangeMcpServerDefinitions: changed.event,
      provideMcpServerDefinitions() {
        const folders = (vscode.workspace.workspaceFolders ?? [])
          .filter((f) => f.uri.scheme === 'file')
          .map((f) => f.uri.fsPath);
        const spec = folioMcpServerSpec(ctx.extension.extensionPath, folders, process.execPath, version);
        return spec
          ? [new api.McpStdioServerDefinition(spec.label, spec.command, spec.args, spec.env, spec.version)]
          : [];
      },
    }),
  );
}
