/**
 * `teamux mcp --as NAME [--team-dir DIR]`: serve the team protocol as MCP tools over stdio for one
 * member (src/mcp/server.ts), for Claude Code, Codex, Gemini CLI or any MCP client. Outside a team,
 * or as somebody who is not a member, it says so on stderr and exits 1 before speaking any MCP. The
 * lead's server enrols a signing key when its screen gave it a one-time token (src/mcp/trust.ts).
 */
import { serveMcp } from '../mcp/server.js';
import { mcpTrustAtStart } from '../mcp/trust.js';
import { actingAs, EXIT_OK, openTeam, parse, UsageError } from './context.js';
import type { Verb } from './verb.js';

const USAGE = 'mcp --as NAME [--team-dir DIR]';

export const mcpVerb: Verb = {
  name: 'mcp',
  usage: [USAGE],
  examples: [
    'teamux mcp --as alice --team-dir .teamux/webapp',
    'claude --mcp-config "$TEAMUX_MCP_CONFIG"   # a config whose server runs teamux mcp --as NAME',
  ],
  async run(ctx, argv) {
    const { values, positionals } = parse(argv, { 'team-dir': { type: 'string' }, as: { type: 'string' }, help: { type: 'boolean', short: 'h', default: false } }, USAGE);
    if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`, `usage: ${USAGE}`);
    const as = actingAs(ctx, values.as);
    const store = await openTeam(ctx, values['team-dir'], `mcp:${as}`);
    const cfg = await store.config();
    const me = cfg.members.find((m) => m.name === as);
    if (!me) {
      throw new UsageError(`${JSON.stringify(as)} is not a member of team ${cfg.name} (${store.dir})`, `members: ${cfg.members.map((m) => m.name).join(', ')}`);
    }
    if (process.stdin.isTTY) ctx.err('teamux mcp speaks MCP (JSON-RPC) on stdin/stdout; point an MCP client at this command. Ctrl-D ends it.');
    // A Claude Code lead's server enrols its signing key now, before its model's first call.
    const trust = mcpTrustAtStart(store, ctx.env, me, cfg);
    await serveMcp(store, as, undefined, trust);
    return EXIT_OK;
  },
};
