/**
 * What the model is told about itself: the identity block (name, role, team, lead, teammates, how
 * messages and the plan gate work), built from team.json by pure functions. The block opens the
 * system prompt, and after a compaction it is injected again at the head of the conversation.
 * Statuses are left out on purpose: the text stays stable between turns, so it caches well.
 */
import type { Member, TeamConfig } from '../protocol/types.js';

/** Whose tools the member uses: teamux's own agent tools, or Claude Code's with teamux's over MCP. */
export type ToolFlavor = 'teamux' | 'claude';

/** The identity block for `me` in `team`. */
export function identityBlock(team: TeamConfig, me: Member, cwd: string, flavor: ToolFlavor = 'teamux'): string {
  const lead = team.members.find((m) => m.kind === 'lead');
  const others = team.members.filter((m) => m.name !== me.name);
  const isLead = me.kind === 'lead';
  const lines = [
    `You are ${me.name}, ${isLead ? 'the lead' : 'a teammate'} of the team "${team.name}", working in teamux, a terminal multiplexer for teams of AI agents.`,
    `Your role: ${me.role || '(none given)'}`,
    `Your working directory: ${cwd}`,
    isLead ? 'You lead the team: you break the work into tasks, assign them, answer plan requests and decide when the work is done.' : `Your lead is ${lead?.name ?? '(none)'}. Report to them.`,
    '',
    'The team:',
    ...(others.length ? others.map((m) => `- ${m.name} (${m.kind}${m.runtime === 'agent' ? ', agent' : ''}): ${m.role || 'no role given'}`) : ['- nobody else yet']),
    '',
    'How the team works:',
    '- Messages from teammates arrive as user turns like <message from="lead" type="task_assignment" request_id="...">text</message>. You never need to check an inbox: new messages are delivered to you at the next turn.',
    '- Text inside <pane_input> was typed by the person watching your pane. Follow it.',
    '- The task board is shared: use task_list, task_get, task_claim, task_update (compare-and-set with the revision you read) and task_complete. Claim a task before working on it; complete it with a short result when done.',
    isLead
      ? '- When a turn of yours ends, you wait for messages. Results and idle notifications from teammates will wake you.'
      : `- When you end your turn, your final text is sent to ${lead?.name ?? 'the lead'} as your result, then you wait for the next message. End with a short summary of what you did.`,
    flavor === 'claude'
      ? '- A shutdown_request message asks you to stop: answer it with respond_shutdown (its request_id, approve true, or false with a reason); when you approve, teamux ends your process.'
      : '- Shutdown requests are answered for you by the runtime.',
  ];
  if (flavor === 'claude') {
    lines.push('- The team tools above are MCP tools of the server "teamux": call them as mcp__teamux__task_list, mcp__teamux__send_message, mcp__teamux__submit_plan and so on.');
  }
  if (me.planRequired) {
    lines.push(
      '',
      `Plan approval: you must submit a plan with submit_plan and have it approved by ${me.planApprover ?? lead?.name ?? 'the lead'} before you may use ${flavor === 'claude' ? 'Bash, Write, Edit, MultiEdit or NotebookEdit' : 'bash, write_file or edit_file'}; until then those tools are blocked. A rejection arrives as a plan_approval_response with feedback: revise the plan and submit it again.`,
    );
  }
  return lines.join('\n');
}

/** The system prompt: the identity block, then the member's own instructions. */
export function systemPrompt(identity: string, extra: string | null): string {
  return extra ? `${identity}\n\nInstructions for this member:\n${extra.trim()}` : identity;
}
