/**
 * The sidebar's block for a native lead's Claude Code team: its name and task count, one line per
 * member (Claude Code's own active flag), then the newest inbox traffic with idle notifications and
 * plan requests named as such, and the lead's signature: ✓ only when it was verified. Pure:
 * (view, width, budget) → rows.
 */
import type { ClaudeTeamMessage, ClaudeTeamView } from '../store/claude-team-files.js';
import { C, fit, style, type Row } from './text.js';

const HEAD = style(C.black, C.magenta, { bold: true });
const DIM = style(C.default, C.default, { dim: true });
const PLAIN = style();
/** ✓ only for a lead_sig checked good; an unchecked one says so, a bad one is flagged. */
const SIG_MARK: Record<ClaudeTeamMessage['sig'], string> = { verified: '✓', unverified: ' (sig unchecked)', forged: ' ✗FORGED', none: '' };

/** A message's summary: "idle (available): hello from amy" for an idle notification, else its text. */
export function claudeMessageSummary(m: ClaudeTeamMessage): string {
  let detail = m.text;
  if (m.text.startsWith('{')) {
    try {
      const v = JSON.parse(m.text) as Record<string, unknown>;
      const parts = [v['idleReason'], v['result'] ?? v['plan'] ?? v['reason'] ?? v['content']].filter((x): x is string => typeof x === 'string' && x !== '');
      detail = parts.join(': ');
    } catch {
      // shown as it is
    }
  }
  const kind = m.kind === 'idle_notification' ? 'idle' : m.kind === 'plan_approval_request' ? 'plan' : m.kind === 'message' ? '' : m.kind;
  return [kind, detail.replace(/\s+/g, ' ').trim()].filter(Boolean).join(' ');
}

/** Rows for the Claude Code team, at most `budget`. */
export function claudeTeamRows(v: ClaudeTeamView, width: number, budget: number): Row[] {
  if (budget <= 0) return [];
  const rows: Row[] = [[{ text: fit(` CLAUDE TEAM ${v.name} · ${v.tasks.length} task${v.tasks.length === 1 ? '' : 's'}`, width), attr: HEAD }]];
  const nameWidth = Math.min(12, Math.max(4, ...v.members.map((m) => m.name.length)));
  for (const m of v.members) {
    const state = m.backendType === 'in-process' ? 'lead' : m.active === true ? 'working' : m.active === false ? 'idle' : '';
    const where = m.paneId && m.backendType !== 'in-process' ? ` ${m.paneId}` : '';
    rows.push([{ text: '◆ ', attr: style(m.active ? C.yellow : C.green) }, { text: fit(m.name, nameWidth).padEnd(nameWidth), attr: PLAIN }, { text: fit(` ${state}${where}${m.planModeRequired ? ' plan' : ''}`, Math.max(0, width - 2 - nameWidth)), attr: DIM }]);
  }
  const room = budget - rows.length;
  const shown = room > 0 ? v.traffic.slice(-room) : [];
  for (const m of shown) {
    const at = new Date(m.timestamp);
    const time = Number.isNaN(at.getTime()) ? '     ' : `${String(at.getHours()).padStart(2, '0')}:${String(at.getMinutes()).padStart(2, '0')}`;
    const attr = m.sig === 'forged' ? style(C.red) : m.kind === 'plan_approval_request' ? style(C.yellow) : PLAIN;
    rows.push([{ text: fit(`${time} ${m.from}→${m.to}${SIG_MARK[m.sig]} ${claudeMessageSummary(m)}`, width), attr }]);
  }
  for (const p of v.problems) if (rows.length < budget) rows.push([{ text: fit(`! ${p}`, width), attr: style(C.red) }]);
  return rows.slice(0, budget);
}
