/**
 * The ready-made MCP client config for a `command:` member with `mcp: true`: the JSON shape Claude
 * Code's --mcp-config reads (other clients take the same command, args and env), with the absolute
 * path of this teamux's bin so the client starts the same teamux that runs the team. Pure; the
 * store writes it to <team>/mcp/<name>.json and the pane gets its path in TEAMUX_MCP_CONFIG.
 */
import { fileURLToPath } from 'node:url';
import { SERVER_NAME } from './tools.js';

/** This teamux's command (bin/teamux), absolute. */
export const TEAMUX_BIN = fileURLToPath(new URL('../../bin/teamux', import.meta.url));

/** One stdio MCP server entry. */
export interface McpServerEntry {
  type: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** A client config file: `{"mcpServers":{"teamux":{…}}}`. */
export interface McpClientConfig {
  mcpServers: Record<string, McpServerEntry>;
}

/** The config that runs `teamux mcp --as NAME` for the team in `teamDir`. */
export function mcpClientConfig(teamDir: string, member: string, bin = TEAMUX_BIN): McpClientConfig {
  return {
    mcpServers: {
      [SERVER_NAME]: { type: 'stdio', command: bin, args: ['mcp', '--as', member], env: { TEAMUX_TEAM_DIR: teamDir, TEAMUX_MEMBER: member } },
    },
  };
}
