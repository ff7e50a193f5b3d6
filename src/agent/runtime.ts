/**
 * AgentRuntime: one member's persistent agent process, minus the terminal. It owns the conversation
 * (saved to the transcript after every step), the queue of typed steering lines, the heartbeat timer
 * and the watches it sleeps on. Its life: WORK (model turns and tool steps while the model asks for
 * tools) → report (a `result` and then an `idle_notification` to the lead) → IDLE (asleep on the
 * inbox, and on the task folder with auto_claim; no model call) → WORK again when input arrives.
 * Inbox messages are peeked, appended, saved, and only then committed, so a crash loses nothing. A
 * shutdown_request is answered by the runtime itself after the current tool step. Output goes to
 * an injected Pane; input comes through steer()/interrupt()/exit(), so tests run it without a TTY.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { Disposable } from '../host/types.js';
import type { Member, MemberStatus, Message, TeamConfig } from '../protocol/types.js';
import type { TeamStore } from '../store/team.js';
import { inSandbox } from '../store/liveness.js';
import { shouldCompact } from './compaction.js';
import { appendUser, assistantBlocks, awaitsReply, inputBlocks, repairConversation, textOfTurn, toolUses, type Turn } from './conversation.js';
import { claimedText, claimReady, releaseHeld, reportCycleEnd, startHeartbeat, type CycleEnd } from './work-cycle.js';
import type { DecisionSigner } from '../protocol/trust.js';
import { enrolLead } from './enrol.js';
import { gateAnchorAtStart, memberPlanStatus, untrustedReason, type GateAnchor } from './gate.js';
import { makeClient } from './model.js';
import type { AgentOptions, Endpoint } from './options.js';
import type { Pane } from './pane.js';
import { budgetHold, recordModelCall } from './budget.js';
import { estimateCost } from '../protocol/pricing.js';
import { loadTranscript, saveTranscript, scrubSecrets, ZERO_USAGE, type UsageTotals } from './transcript.js';
import { compactConversation, modelTurn, toolStep, type TurnContext } from './turn.js';
import type { PaneState } from './view.js';

/** How long one idle sleep lasts before everything is checked again (the watches wake it sooner). */
const IDLE_RECHECK_MS = 60_000;

/** What a runtime is built from. */
export interface RuntimeDeps {
  store: TeamStore;
  options: AgentOptions;
  endpoint: Endpoint;
  pane: Pane;
  /** Environment for bash; credentials are removed from it. Default: process.env. */
  env?: NodeJS.ProcessEnv;
}

/** Environment for child processes: the caller's, without API credentials or where the key is kept. */
export function childEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out = { ...env };
  for (const k of ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'TEAMUX_API_KEY_FILE', 'TEAMUX_API_KEY_COMMAND', 'TEAMUX_ENROL_TOKEN', 'TEAMUX_ENROL_SOCKET']) delete out[k];
  return out;
}

/** One member's agent. */
export class AgentRuntime implements Disposable {
  // configuration, fixed at construction
  private readonly store: TeamStore;
  private readonly options: AgentOptions;
  private readonly pane: Pane;
  private readonly client: Anthropic | null;
  private readonly offline: string | null;
  private readonly secrets: string[];
  private readonly childEnv: NodeJS.ProcessEnv;
  private readonly startEnv: NodeJS.ProcessEnv;
  private readonly demo: boolean;
  // fixed at start from the environment: the plan gate, and the lead's enrolled signer
  private gate!: GateAnchor;
  private signer: DecisionSigner | null = null;
  // the team as last read from team.json
  private team!: TeamConfig;
  private me!: Member;
  private lead = '';
  // the conversation, persisted to the transcript
  private conv: Turn[] = [];
  private usage: UsageTotals = { ...ZERO_USAGE };
  private contextTokens = 0;
  private compactions = 0;
  // steering and control, changed from outside by steer/interrupt/exit
  private readonly typed: string[] = [];
  private turnAbort: AbortController | null = null;
  private wake: (() => void) | null = null;
  private exitCode: number | null = null;
  // what the pane and team.json show
  private state: PaneState = 'starting';
  private note: string | null = null;
  /** Why the model is not being called (a spent budget), or null. */
  private budgetNote: string | null = null;
  private recorded: MemberStatus | null = null;
  // owned resources, released by dispose()
  private heartbeat: Disposable | null = null;

  constructor(deps: RuntimeDeps) {
    this.store = deps.store;
    this.options = deps.options;
    this.pane = deps.pane;
    this.demo = deps.endpoint.ok && deps.endpoint.demo;
    this.client = deps.endpoint.ok ? makeClient(deps.endpoint) : null;
    this.offline = deps.endpoint.ok ? null : deps.endpoint.reason;
    this.secrets = deps.endpoint.ok && !deps.endpoint.demo ? [deps.endpoint.apiKey] : [];
    this.startEnv = { ...(deps.env ?? process.env) };
    this.childEnv = childEnvironment(this.startEnv);
  }

  /** Run until a shutdown is approved or exit() is called; resolves with the exit code. */
  async run(): Promise<number> {
    this.pane.start();
    try {
      if (!(await this.refreshTeam())) {
        this.pane.line(`${this.options.name} is not a member of team ${this.team.name}`, 'red');
        this.exitCode = 1;
        return 1;
      }
      this.gate = gateAnchorAtStart(this.startEnv, this.me, this.team, this.lead);
      await this.store.memberStarted(this.options.name, inSandbox(this.startEnv) ? null : process.pid);
      this.recorded = 'working';
      this.heartbeat = startHeartbeat(this.store, this.options.name, this.options.heartbeatMs);
      if (this.me.kind === 'lead') this.signer = await enrolLead(this.store, this.pane, this.options.name, this.gate.trust, this.startEnv);
      await this.restore();
      if (this.offline) {
        this.pane.line(this.offline, 'red');
        this.note = 'no API key';
      } else if (this.conv.length === 0 && this.options.kickoff) {
        this.conv = appendUser([], [{ type: 'text', text: this.options.kickoff }]);
        await this.save();
      }
      await this.loop();
    } catch (err) {
      this.store.log.error(`agent ${this.options.name} stopped on an internal error`, err);
      this.pane.line(`internal error: ${(err as Error).message} (details in ${this.store.paths.log})`, 'red');
      this.exitCode = 70;
    } finally {
      this.stopHeartbeat();
      const code = this.exitCode ?? 0;
      if (this.me) await this.store.updateMember(this.options.name, { status: 'exited', exitCode: code }).catch(() => undefined);
      this.state = 'exited';
      this.showStatus();
      this.pane.dispose();
    }
    return this.exitCode ?? 0;
  }

  /** Queue a line typed into the pane; it reaches the model at the next turn boundary. */
  steer(text: string): void {
    const t = text.trim();
    if (!t) return;
    this.typed.push(t);
    this.pane.line(`› ${t}${this.turnAbort ? '  (queued for the next turn)' : ''}`, 'bold');
    this.wake?.();
  }

  /** Interrupt the current model turn or tool step (Esc); false when there was none. */
  interrupt(): boolean {
    if (!this.turnAbort || this.turnAbort.signal.aborted) return false;
    this.turnAbort.abort();
    return true;
  }

  /** Stop now with `code` (a second Ctrl-C, a signal); the current step is abandoned. */
  exit(code: number, reason: string): void {
    if (this.exitCode !== null) return;
    this.exitCode = code;
    this.pane.line(`exiting: ${reason}`, 'yellow');
    this.turnAbort?.abort();
    this.wake?.();
  }

  /** Release the timers and watches (run() does this itself when it ends). */
  dispose(): void {
    this.exit(this.exitCode ?? 0, 'disposed');
    this.stopHeartbeat();
  }

  private async loop(): Promise<void> {
    let owed = this.conv.length > 0 && awaitsReply(this.conv);
    while (this.exitCode === null) {
      const waker = this.armWaker();
      try {
        const got = await this.takeInput();
        if (got.shutdown) {
          await this.shutdown(got.shutdown);
          break;
        }
        if (this.exitCode !== null) break;
        if (this.client && (got.added || owed || this.options.autoClaim) && (await this.budgetSpent())) {
          // Not a model call, not a claim, until the window moves on: wait for messages or the recheck.
          owed = owed || got.added;
          await this.goIdle();
          await this.store.mail.waitForUnread(this.options.name, this.options.name, IDLE_RECHECK_MS, waker.signal);
          continue;
        }
        if ((got.added || owed) && this.client) {
          owed = await this.work(this.client);
          continue;
        }
        if (this.client && this.options.autoClaim && (await this.autoClaim())) {
          owed = await this.work(this.client);
          continue;
        }
        await this.goIdle();
        await this.store.mail.waitForUnread(this.options.name, this.options.name, IDLE_RECHECK_MS, waker.signal);
      } finally {
        waker.dispose();
      }
    }
  }

  /**
   * One WORK cycle: model turns and tool steps until the model ends its turn with nothing pending.
   * Resolves true when it stopped with input still unanswered (typed while a step was interrupted).
   */
  private async work(client: Anthropic): Promise<boolean> {
    const abort = new AbortController();
    this.turnAbort = abort;
    this.state = 'working';
    this.note = null;
    await this.setStatus('working');
    try {
      for (;;) {
        if (this.exitCode !== null) return false;
        await this.refreshTeam();
        const tc = this.turnContext(client);
        if (shouldCompact(this.contextTokens, this.options.compactAt)) {
          const c = await compactConversation(tc, this.conv, abort.signal);
          if (c.kind === 'aborted') return await this.afterWork('interrupted', false);
          if (c.kind === 'failed') this.pane.line(`compaction failed (${c.message}); going on with the full context`, 'red');
          if (c.kind === 'compacted') {
            this.conv = c.conv;
            this.compactions++;
            this.addUsage(c.usage);
            await recordModelCall(this.store, this.options.name, this.options.model, c.usage, this.demo);
            this.pane.line(`compacted ${c.before} turns into ${c.after}`, 'dim');
          }
          if (c.kind !== 'skipped') {
            // The next reply reports the new size; until then, do not try again.
            this.contextTokens = 0;
            await this.save();
          }
        }
        // A budget spent mid-cycle stops it here; the loop waits and resumes once the window allows.
        if (await this.budgetSpent()) return true;
        const outcome = await modelTurn(tc, this.conv, abort.signal);
        if (outcome.kind === 'aborted') return await this.afterWork('interrupted', false);
        if (outcome.kind === 'failed') return await this.afterWork('failed', false, outcome.message);
        this.addUsage(outcome.message.usage);
        await recordModelCall(this.store, this.options.name, this.options.model, outcome.message.usage, this.demo);
        this.conv = [...this.conv, { role: 'assistant', content: assistantBlocks(outcome.message.content) }];
        await this.save();
        const calls = toolUses(this.conv[this.conv.length - 1]);
        if (calls.length > 0) {
          this.conv = appendUser(this.conv, await toolStep(tc, calls, abort.signal));
          await this.save();
        }
        const got = await this.takeInput();
        if (got.shutdown) {
          await this.shutdown(got.shutdown);
          return false;
        }
        if (abort.signal.aborted) return await this.afterWork('interrupted', got.added);
        if (calls.length === 0 && !got.added) return await this.afterWork('done', false);
      }
    } finally {
      this.turnAbort = null;
    }
  }

  /**
   * Report the end of a WORK cycle: a teammate sends its result and an idle notification to the
   * lead. Passes `owed` through (true: input is waiting for the next cycle).
   */
  private async afterWork(how: 'done' | 'failed' | 'interrupted', owed: boolean, error?: string): Promise<boolean> {
    if (this.exitCode !== null) return false;
    if (how === 'interrupted') {
      this.pane.line('interrupted; type to steer, or wait for messages', 'yellow');
      this.note = 'interrupted';
      return owed;
    }
    if (how === 'failed') {
      this.pane.line(`model call failed: ${error}`, 'red');
      this.note = 'last turn failed';
    }
    if (this.me.kind === 'lead' || !this.lead || this.lead === this.me.name) return owed;
    const end: CycleEnd = how === 'done'
      ? { how, text: scrubSecrets(textOfTurn(this.conv[this.conv.length - 1]), this.secrets) }
      : { how, error: error ?? 'unknown error' };
    // The idle notification also records the member as idle in team.json.
    if (await reportCycleEnd(this.store, this.options.name, this.lead, end)) this.recorded = 'idle';
    return owed;
  }

  /** Peek at the inbox and the typed queue; append them as user content, save, then commit the cursor. */
  private async takeInput(): Promise<{ added: boolean; shutdown: Message | null }> {
    const me = this.options.name;
    const unread = await this.store.mail.unread(me, me);
    for (const p of unread.problems) this.pane.line(`skipped a bad inbox line: ${p.message}`, 'red');
    const shutdown = unread.messages.find((m) => m.type === 'shutdown_request' && m.request_id) ?? null;
    const messages = unread.messages.filter((m) => m.type !== 'shutdown_request');
    const typed = this.typed.splice(0);
    for (const m of messages) this.pane.inbox(m);
    const blocks = inputBlocks(messages, typed);
    if (blocks.length > 0) {
      this.conv = appendUser(this.conv, blocks);
      await this.save();
    }
    if (unread.messages.length > 0 || unread.problems.length > 0) await this.store.mail.commit(me, me, unread.next);
    return { added: blocks.length > 0, shutdown };
  }

  /** Approve a shutdown request: release held tasks, answer, and stop with exit code 0. */
  private async shutdown(m: Message): Promise<void> {
    const me = this.options.name;
    this.state = 'stopping';
    this.note = `asked by ${m.from}`;
    this.pane.line(`shutdown requested by ${m.from}${m.text ? `: ${m.text}` : ''}; approving`, 'yellow');
    await this.setStatus('stopping');
    const held = await releaseHeld(this.store, me, 'owner shut down');
    const why = held.length ? `shutting down; released task${held.length > 1 ? 's' : ''} ${held.join(', ')}` : 'shutting down';
    const r = await this.store.answerRequest(m.request_id!, me, true, why);
    if (!r.ok) this.pane.line(`could not answer ${m.request_id}: ${r.message}`, 'red');
    this.exitCode = 0;
  }

  /**
   * Whether a budget (the member's or the team's) is spent. The first time it is, the pane says so,
   * its status line notes it and the lead is told; when the window frees it, the pane says that too.
   */
  private async budgetSpent(): Promise<boolean> {
    // team.json may have a new budget (raised by hand or a new layout): read it again.
    await this.refreshTeam();
    const held = await budgetHold(this.store, this.team, this.me);
    if (held === null) {
      if (this.budgetNote !== null) {
        this.pane.line('budget available again; going on', 'yellow');
        this.budgetNote = null;
        this.note = null;
      }
      return false;
    }
    this.note = 'budget spent';
    if (this.budgetNote !== held) {
      const first = this.budgetNote === null;
      this.budgetNote = held;
      this.state = 'idle';
      this.pane.line(`${held}; not calling the model until the window moves on`, 'red');
      this.showStatus();
      this.store.log.warn(`agent ${this.options.name}: ${held}`);
      if (first && this.lead && this.lead !== this.options.name) {
        const r = await this.store.send({ from: this.options.name, to: this.lead, type: 'message', text: `${held}. I have stopped calling the model until the budget allows it again.`, payload: { budget: 'spent' } });
        if (!r.ok) this.pane.line(`could not tell ${this.lead}: ${r.message}`, 'red');
      }
    }
    return true;
  }

  /** With auto_claim: claim the next ready task when holding none, and start on it. */
  private async autoClaim(): Promise<boolean> {
    const t = await claimReady(this.store, this.options.name);
    if (!t) return false;
    // Claiming records the member as working.
    this.recorded = 'working';
    this.pane.line(`auto_claim: claimed task ${t.id}: ${t.subject}`, 'yellow');
    this.conv = appendUser(this.conv, [{ type: 'text', text: claimedText(t) }]);
    await this.save();
    return true;
  }

  private async goIdle(): Promise<void> {
    const requests = (await this.store.requests.list()).requests;
    const status = memberPlanStatus(this.gate, requests);
    this.state = status === 'pending' || status === 'unverified' ? 'waiting for approval' : 'idle';
    if (status === 'unverified') this.pane.line(`the answer to my plan does not count: ${untrustedReason(this.gate, requests)}`, 'red');
    if (this.offline) this.note = 'no API key';
    await this.setStatus('idle');
    this.showStatus();
  }

  /** A wake-up for the idle sleep: typed input, exit(), and (with auto_claim) any change in the task folder. */
  private armWaker(): { signal: AbortSignal; dispose(): void } {
    const ac = new AbortController();
    const wake = (): void => ac.abort();
    this.wake = wake;
    const board = this.options.autoClaim && this.client ? this.store.backend.watchTasks(wake) : null;
    return {
      signal: ac.signal,
      dispose: () => {
        board?.dispose();
        if (this.wake === wake) this.wake = null;
      },
    };
  }

  private turnContext(client: Anthropic): TurnContext {
    return {
      client, options: this.options, pane: this.pane, store: this.store, team: this.team, me: this.me, lead: this.lead,
      secrets: this.secrets, childEnv: this.childEnv, gate: this.gate, signer: this.signer,
      onRetry: () => {
        this.note = 'retrying';
        this.showStatus();
      },
    };
  }

  private async refreshTeam(): Promise<boolean> {
    this.team = await this.store.config();
    const me = this.team.members.find((m) => m.name === this.options.name);
    this.lead = this.team.members.find((m) => m.kind === 'lead')?.name ?? '';
    if (!me) return false;
    this.me = me;
    return true;
  }

  private async restore(): Promise<void> {
    const loaded = await loadTranscript(this.store.paths.transcript(this.options.name));
    if (!loaded.ok) {
      this.pane.line(loaded.problem, 'red');
      return;
    }
    const t = loaded.transcript;
    if (!t) return;
    this.conv = repairConversation(t.messages);
    this.usage = { ...t.usage };
    this.contextTokens = t.contextTokens;
    this.compactions = t.compactions;
    this.pane.line(`resumed the conversation from the transcript (${t.messages.length} turns)`, 'dim');
  }

  private async save(): Promise<void> {
    const t = {
      version: 1 as const, member: this.options.name, model: this.options.model, savedAt: new Date().toISOString(),
      contextTokens: this.contextTokens, compactions: this.compactions, usage: this.usage, messages: this.conv,
    };
    await saveTranscript(this.store.paths.transcript(this.options.name), t, this.secrets);
  }

  private addUsage(u: Anthropic.Usage): void {
    const cacheRead = u.cache_read_input_tokens ?? 0;
    const cacheWrite = u.cache_creation_input_tokens ?? 0;
    this.usage = {
      input: this.usage.input + u.input_tokens,
      output: this.usage.output + u.output_tokens,
      cacheRead: this.usage.cacheRead + cacheRead,
      cacheWrite: this.usage.cacheWrite + cacheWrite,
    };
    this.contextTokens = u.input_tokens + cacheRead + cacheWrite + u.output_tokens;
    this.showStatus();
  }

  private async setStatus(status: MemberStatus): Promise<void> {
    this.showStatus();
    if (this.recorded === status) return;
    this.recorded = status;
    await this.store.updateMember(this.options.name, { status });
  }

  private showStatus(): void {
    this.pane.status({
      member: this.options.name, state: this.state, model: this.options.model, demo: this.demo, usage: this.usage,
      cost: estimateCost(this.options.model, this.usage), note: this.note,
    });
  }

  private stopHeartbeat(): void {
    this.heartbeat?.dispose();
    this.heartbeat = null;
  }
}
