/**
 * The table of CLI verbs, as tmux's cmd_table: a name, a one-line summary, and how to load the verb.
 * Verbs are imported only when run, so `teamux task claim` does not pay for the UI, node-pty or the
 * SDK at start-up. Adding a verb means writing its file and listing it here.
 */
import type { Verb } from './verb.js';

/** One row of the table. */
export interface VerbEntry {
  name: string;
  summary: string;
  load: () => Promise<Verb>;
}

export const verbs: VerbEntry[] = [
  { name: 'start', summary: 'start the team from a layout and take over the terminal', load: async () => (await import('./start.js')).startVerb },
  { name: 'attach', summary: 'open the TUI over a team running under tmux', load: async () => (await import('./attach.js')).attachVerb },
  { name: 'detach', summary: 'detach the TUI from a tmux-backed team; every member keeps running', load: async () => (await import('./detach.js')).detachVerb },
  { name: 'ls', summary: 'list teams running under tmux, with their members and states', load: async () => (await import('./ls.js')).lsVerb },
  { name: 'kill', summary: 'shut a tmux-backed team down by handshake, then remove its session', load: async () => (await import('./kill.js')).killVerb },
  { name: 'init', summary: 'create or refresh the team folder from a layout; print its path', load: async () => (await import('./init.js')).initVerb },
  { name: 'validate', summary: 'check a layout file: a one-line summary, or file:line:col errors', load: async () => (await import('./init.js')).validateVerb },
  { name: 'task', summary: 'create, list, claim, update, complete and release tasks', load: async () => (await import('./task.js')).taskVerb },
  { name: 'msg', summary: 'send a message to one member, or broadcast to all', load: async () => (await import('./msg.js')).msgVerb },
  { name: 'inbox', summary: "read a member's unread messages (and advance its cursor)", load: async () => (await import('./msg.js')).inboxVerb },
  { name: 'request', summary: 'list, approve or reject plan and shutdown requests; open a shutdown request', load: async () => (await import('./request.js')).requestVerb },
  { name: 'plan', summary: 'submit a plan for approval, or show where the plan gate stands', load: async () => (await import('./request.js')).planVerb },
  { name: 'diff', summary: "a member's work against base (its worktree's committed and uncommitted changes)", load: async () => (await import('./worktree.js')).diffVerb },
  { name: 'merge', summary: "merge a member's work into base in root: all or nothing (a conflict exits 3, root unchanged)", load: async () => (await import('./worktree.js')).mergeVerb },
  { name: 'discard', summary: "throw a member's work away (its worktree back to base); a backup ref keeps it", load: async () => (await import('./worktree.js')).discardVerb },
  { name: 'request-changes', summary: "send a member review comments on its work (files and lines) as one inbox message", load: async () => (await import('./worktree.js')).requestChangesVerb },
  { name: 'worktree', summary: "list members' worktrees: path, branch, base, changes, overlaps", load: async () => (await import('./worktree.js')).worktreeVerb },
  { name: 'archive', summary: 'move a finished team to .teamux/archive/<team>-<time>/', load: async () => (await import('./archive.js')).archiveVerb },
  { name: 'pipeline', summary: "a staged pipeline: where it stands (stages, stories, verdicts), and the lead's retry of blocked stories", load: async () => (await import('./pipeline.js')).pipelineVerb },
  { name: 'report', summary: 'what the team did: tasks done and blocked, verdicts, parallelism, durations, tokens and cost per member', load: async () => (await import('./report.js')).reportVerb },
  { name: 'team', summary: 'show the team: members, kinds, roles and live status', load: async () => (await import('./team.js')).teamVerb },
  { name: 'mcp', summary: 'serve the team protocol as MCP tools over stdio for one member (Claude Code, Codex, Gemini CLI)', load: async () => (await import('./mcp.js')).mcpVerb },
  { name: 'agent', summary: "run a member as teamux's agent (a model with team tools) in this terminal", load: async () => (await import('./agent.js')).agentVerb },
  { name: 'hook', summary: "Claude Code's hooks: deliver messages, the plan gate, permission answers, state", load: async () => (await import('./hook.js')).hookVerb },
  { name: 'ssh-member', summary: 'run a member on another machine over ssh -tt (what a host: member\'s pane runs)', load: async () => (await import('./ssh-member.js')).sshMemberVerb },
  { name: 'tmux-bridge', summary: "serve a native Claude Code lead's tmux stand-in beside a tmux-backed team (started by start/attach)", load: async () => (await import('./tmux-bridge.js')).tmuxBridgeVerb },
  { name: 'demo-server', summary: 'serve the offline demo model (scripted Messages API) until stopped', load: async () => (await import('./demo-server.js')).demoServerVerb },
];
