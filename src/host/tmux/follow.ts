/**
 * Following the panes a tmux stand-in bridge opens in the team's session while a screen is attached
 * (docs/claude-native-teams.md): a control-mode subscription reports, for every pane of the session,
 * its slot, pid and member tag whenever they change (tmux checks about once a second). A tagged pane
 * with a slot that this host does not track has appeared; a tracked one whose tag changed was
 * respawned under a new name (a placeholder `%1` becoming the teammate `amy`). Pure: the host acts.
 */
import { MEMBER_OPTION } from './commands.js';
import { SLOT_OPTION } from './pane-control.js';

/** The subscription's name. */
export const TAG_SUBSCRIPTION = 'teamux-tags';
/** The name of the subscription to the bridge's focus requests (focus-request.ts). */
export const FOCUS_SUBSCRIPTION = 'teamux-focus';

/** Subscribes the control client to every pane's slot, pid and member tag. */
export function tagSubscriptionCommand(): string[] {
  return ['refresh-client', '-B', `${TAG_SUBSCRIPTION}:%*:#{${SLOT_OPTION}} #{pane_pid} #{${MEMBER_OPTION}}`];
}

/** A bridge pane as the subscription reports it; null for a layout member's pane or an untagged one. */
export function parseTagValue(value: string): { slot: number; pid: number | undefined; member: string } | null {
  const m = /^(\d+) (\d*) (\S+)$/.exec(value.trim());
  return m ? { slot: Number(m[1]), pid: m[2] ? Number(m[2]) : undefined, member: m[3]! } : null;
}

/** What the host does about one report: nothing, adopt a new pane, or re-adopt a renamed one. */
export function tagChange(tracked: string | undefined, tag: { member: string } | null): 'none' | 'appeared' | 'renamed' {
  if (!tag) return 'none';
  if (tracked === undefined) return 'appeared';
  return tracked === tag.member ? 'none' : 'renamed';
}
