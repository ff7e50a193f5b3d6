/**
 * `teamux hook EVENT` at work: one Claude Code hook event applied to the team folder through the
 * store. Stop hands over unread messages (the cursor moves only once they are written out) or
 * reports the member idle; PreToolUse is the plan gate, and refuses every tool while a budget is
 * spent (hook-budget.ts), when Stop hands nothing over either; PermissionRequest opens a `permission`
 * request and waits on a file watch for the operator's signed answer, stepping aside after the
 * timeout or when an answer does not verify, and withdrawing the request once the call was answered
 * in Claude Code's own dialog instead (pane-answer.ts);
 * the others keep the member's activity record (state, tokens, cost) current.
 */
import { readFile } from 'node:fs/promises';
import { reportCycleEnd } from '../../agent/work-cycle.js';
import { gateAnchorAtStart, gateDecision, memberPlanStatus } from '../../agent/gate.js';
import { updateClaudeActivity } from '../../store/claude.js';
import { withLock } from '../../store/lock.js';
import { checkPermissionAnswer, OPERATOR } from '../../protocol/trust.js';
import type { TeamStore } from '../../store/team.js';
import { waitOnFolder } from '../../store/watch.js';
import { denyTool, keepGoing, permissionDecision, stopPrompt, transcriptTokens, type HookInput } from './hook-answers.js';
import { nativeNeedsPermission, nativePermissionDecision } from './native-hooks.js';
import { budgetRefusal, claudeBudgetHold, claudePrice, usesDemoModel } from './hook-budget.js';
import { claudeToolGated } from './tool-gate.js';
import { waitAnsweredInPane } from './pane-answer.js';

/**
 * A wait for the call to be answered somewhere other than the screen (the CLI's own dialog): the
 * reason to withdraw the request with, or null when it saw nothing before the signal ended it.
 */
export type AnsweredElsewhere = (signal: AbortSignal) => Promise<string | null>;

/** Where a hook writes its answer; `out` resolves once the text is flushed. */
export interface HookIo {
  out(text: string): Promise<void>;
  err(text: string): void;
  /** Aborted when the hook is asked to stop (Claude Code killed it). */
  signal?: AbortSignal;
}

/** Options of one hook run. */
export interface HookRun {
  event: string;
  member: string;
  input: HookInput;
  /** PermissionRequest: how long to wait for teamux's answer. */
  permissionTimeoutMs: number;
}

/** Apply one hook event; returns the exit code (0: Claude goes on as the printed answer says). */
export async function runHook(store: TeamStore, run: HookRun, io: HookIo): Promise<number> {
  const me = await store.member(run.member);
  if (!me.ok) {
    io.err(`teamux hook: ${me.message}`);
    return run.event === 'PreToolUse' ? 2 : 1;
  }
  switch (run.event) {
    case 'Stop': return stop(store, run, io);
    case 'StopIdle': return stopIdle(store, run);
    case 'PreToolUse': return planGate(store, run, io);
    case 'PermissionRequest': return permission(store, run, io);
    case 'SessionStart':
      await updateClaudeActivity(store.paths, run.member, { state: 'idle', sessionId: run.input.session_id ?? null, transcriptPath: run.input.transcript_path ?? null });
      await store.updateMember(run.member, { status: 'idle' });
      return 0;
    case 'UserPromptSubmit': {
      // A prompt typed while a budget is spent is not sent to the model (the input line is cleared, so
      // the screen can type messages in once the budget allows).
      const held = await budgetOf(store, run);
      if (held) {
        await io.out(stopPrompt(`teamux: ${held}. Raise the budget (team.json or the layout) or wait for its window to move on.`));
        return 0;
      }
      await updateClaudeActivity(store.paths, run.member, { state: 'working' });
      if (me.value.status === 'idle') await store.updateMember(run.member, { status: 'working' });
      return 0;
    }
    case 'Notification':
      if (run.input.notification_type === 'permission_prompt') await updateClaudeActivity(store.paths, run.member, { state: 'waiting for permission' });
      return 0;
    case 'SessionEnd':
      await updateClaudeActivity(store.paths, run.member, { state: 'ended' });
      return 0;
    case 'StatusLine': return statusLine(store, run, io);
    default:
      io.err(`teamux hook: unknown event "${run.event}" (teamux handles SessionStart, UserPromptSubmit, PreToolUse, PermissionRequest, Notification, Stop, SessionEnd, StatusLine)`);
      return 1;
  }
}

/** Keep Claude going with unread messages, or report the member idle. */
async function stop(store: TeamStore, run: HookRun, io: HookIo): Promise<number> {
  const { member } = run;
  // A spent budget: the messages wait (the pane wake types them in once the budget allows it).
  if (await budgetOf(store, run)) return goIdle(store, run);
  // The same lock the pane wake takes: a message is handed over once, by one of them.
  const handed = await withLock(store.paths.cursor(member, member), async () => {
    const unread = await store.mail.unread(member, member);
    if (unread.messages.length > 0) {
      await io.out(keepGoing(unread.messages));
      await store.mail.commit(member, member, unread.next);
      return unread.messages.length;
    }
    await updateClaudeActivity(store.paths, member, { state: 'idle' });
    return 0;
  });
  if (handed > 0) {
    await updateClaudeActivity(store.paths, member, { state: 'working' });
    return 0;
  }
  await reportIdle(store, run);
  return 0;
}

/** A teammate's turn ended: its result and idle_notification go to the lead; a lead just shows idle. */
async function reportIdle(store: TeamStore, run: HookRun): Promise<void> {
  const cfg = await store.config();
  const me = cfg.members.find((m) => m.name === run.member)!;
  const lead = cfg.members.find((m) => m.kind === 'lead');
  // A teammate of Claude Code's own team: Claude Code tells its lead itself (idle_notification).
  if (me.kind === 'lead' || !lead || me.claudeTeam) await store.updateMember(run.member, { status: 'idle' });
  else await reportCycleEnd(store, run.member, lead.name, { how: 'done', text: (run.input.last_assistant_message ?? '').trim() });
}

/** The bookkeeping of a Stop with nothing to deliver, after the fast path let Claude stop (detached). */
async function stopIdle(store: TeamStore, run: HookRun): Promise<number> {
  // The turn's usage into the usage log; a budget it spent shows and the lead is told.
  await budgetOf(store, run);
  return goIdle(store, run);
}

/** Record the member idle and report the end of its turn. */
async function goIdle(store: TeamStore, run: HookRun): Promise<number> {
  // Idle under the cursor lock: a message that arrived meanwhile is then typed in by the pane wake.
  await withLock(store.paths.cursor(run.member, run.member), () => updateClaudeActivity(store.paths, run.member, { state: 'idle' }));
  await reportIdle(store, run);
  return 0;
}

/** Why a budget stops the member now (its usage brought up to date from the transcript first), or null. */
function budgetOf(store: TeamStore, run: HookRun): Promise<string | null> {
  const transcript = run.input.transcript_path;
  return claudeBudgetHold(store, run.member, transcript ? { transcript, price: claudePrice(usesDemoModel(process.env)) } : null);
}

/**
 * Deny every tool while a budget is spent (the hook is registered for every tool; its fast paths
 * answer at once when no budget is configured and the tool is not gated, hook-perl.ts, stop-fast.cts),
 * and every tool but Claude Code's read-only ones (tool-gate.ts) until the member's plan is approved.
 */
async function planGate(store: TeamStore, run: HookRun, io: HookIo): Promise<number> {
  // A name that is not a string is on no allowlist: gated, as an unknown tool is.
  const tool = typeof run.input.tool_name === 'string' ? run.input.tool_name : '';
  const held = await budgetOf(store, run);
  if (held) {
    await io.out(denyTool(budgetRefusal(held)));
    return 0;
  }
  if (!claudeToolGated(tool)) return 0;
  const me = await store.member(run.member);
  if (!me.ok) return 2;
  // The trust key, run and approver come from the environment Claude Code was started with by the
  // screen (hooks inherit it); a file in the team folder cannot change what counts as an approval.
  const cfg = await store.config();
  const anchor = gateAnchorAtStart(process.env, me.value, cfg, cfg.members.find((m) => m.kind === 'lead')?.name ?? '');
  const { requests } = await store.requests.list();
  const decision = gateDecision(tool, memberPlanStatus(anchor, requests), claudeToolGated);
  if (!decision.allow) await io.out(denyTool(decision.reason));
  // A teammate of Claude Code's own team has no PermissionRequest hook of its own: ask here.
  else if (me.value.claudeTeam && nativeNeedsPermission(tool, run.input.permission_mode)) return permission(store, run, io, nativePermissionDecision);
  return 0;
}

/**
 * Ask the operator through a `permission` request and hand Claude Code the answer, but only an answer
 * signed by the screen that started this member (its key and run from the environment Claude Code
 * inherited, never from a file): one written by anybody else, a member's own shell included, is
 * ignored and the hook steps aside, as it does on timeout, so Claude Code asks in its own pane.
 */
async function permission(store: TeamStore, run: HookRun, io: HookIo, answerText: (allow: boolean, feedback: string) => string = permissionDecision): Promise<number> {
  const cfg = await store.config();
  const me = cfg.members.find((m) => m.name === run.member)!;
  const trust = gateAnchorAtStart(process.env, me, cfg, cfg.members.find((m) => m.kind === 'lead')?.name ?? '').trust;
  if (!trust) {
    // Nobody could answer in a way this hook can check: Claude Code's own prompt decides.
    store.log.warn(`permission for ${run.member}: no TEAMUX_TRUST_KEY/TEAMUX_RUN in its environment (not started by a teamux screen), so Claude Code asks in its pane`);
    return 0;
  }
  const tool = run.input.tool_name ?? '(unknown tool)';
  const input = run.input.tool_input ?? {};
  await updateClaudeActivity(store.paths, run.member, { state: 'waiting for permission' });
  const opened = await store.openPermission(run.member, OPERATOR, tool, input);
  if (!opened.ok) {
    io.err(`teamux hook: ${opened.message}`);
    return 1;
  }
  const id = opened.value.id;
  const target = { requestId: id, member: run.member, tool, input, summary: opened.value.body };
  const answered = async () => {
    const r = await store.requests.get(id);
    return r.ok && r.value.status !== 'pending' ? r.value : undefined;
  };
  // The screen's answer, or Claude Code's own dialog answered first (its transcript shows the result).
  const stop = new AbortController();
  const stopAll = (): void => stop.abort();
  io.signal?.addEventListener('abort', stopAll);
  const transcript = run.input.transcript_path;
  const elsewhere: AnsweredElsewhere = async (signal) => (transcript && (await waitAnsweredInPane(transcript, tool, input, run.permissionTimeoutMs, signal)) ? "answered in Claude Code's own dialog" : null);
  const onScreen = waitOnFolder(store.paths.requests, run.permissionTimeoutMs, answered, { only: (f) => f === `${id}.json`, signal: stop.signal });
  const inPane = elsewhere(stop.signal).then(async (why): Promise<string | Awaited<typeof onScreen>> => (why === null ? onScreen : why));
  const first = await Promise.race([onScreen, inPane]).finally(() => {
    stop.abort();
    io.signal?.removeEventListener('abort', stopAll);
  });
  if (typeof first === 'string') {
    const withdrawn = await store.withdrawRequest(id, run.member, first);
    if (withdrawn.ok) {
      await updateClaudeActivity(store.paths, run.member, { state: 'working' });
      store.log.info(`permission ${id} for ${run.member}: ${first}, withdrawn`);
    }
    return 0;
  }
  const answer = first;
  if (answer && (answer.status === 'approved' || answer.status === 'rejected')) {
    const checked = checkPermissionAnswer(trust, target, answer);
    if (checked.ok) {
      // Claude Code acts on the answer when the hook exits, so nothing slow comes first (whoever
      // answered marked the member working again).
      await io.out(answerText(checked.allow, checked.text));
      store.log.info(`permission ${id} for ${run.member}: ${answer.status}, handed to Claude Code`);
      return 0;
    }
    const why = `an answer to permission ${id} for ${run.member} that does not count was ignored (${checked.why}): Claude Code asks in its pane`;
    store.log.warn(why);
    io.err(`teamux hook: ${why}`);
    return 0;
  }
  if (answer) return 0;
  const why = io.signal?.aborted ? 'the hook was stopped' : `no answer within ${Math.round(run.permissionTimeoutMs / 1000)}s`;
  await store.withdrawRequest(id, run.member, `${why}; Claude Code asks in its pane`);
  return 0;
}

/** Record cost and tokens, and print the line Claude Code shows under its prompt. */
async function statusLine(store: TeamStore, run: HookRun, io: HookIo): Promise<number> {
  const cost = run.input.cost?.total_cost_usd;
  const file = run.input.transcript_path;
  const text = file ? await readFile(file, 'utf8').catch(() => '') : '';
  const t = transcriptTokens(text);
  const activity = await updateClaudeActivity(store.paths, run.member, {
    ...(typeof cost === 'number' ? { costUsd: cost } : {}),
    ...(text ? { tokens: { input: t.input, output: t.output } } : {}),
    model: run.input.model?.id ?? t.model ?? null,
  });
  const parts = [`teamux ${run.member}`, activity.budget ? `${activity.state} (budget spent)` : activity.state];
  if (activity.tokens) parts.push(`${activity.tokens.input + activity.tokens.output} tokens`);
  if (activity.costUsd !== null) parts.push(`$${activity.costUsd.toFixed(2)}`);
  await io.out(parts.join(' · '));
  return 0;
}
