/**
 * TeamStore: the one entry point to a team folder. It owns the roster in `team.json` and checks
 * every name against it, so a message to an unknown member is an error and never a silent success.
 * Tasks, inboxes, requests and events each live in their own class; this file ties them together
 * and records the coordination events.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { answerIsMessaged, checkOpen, permissionSummary, requestMessageType, responseMessageType, type ResponseInput } from '../protocol/requests.js';
import type { CompletionFields } from '../protocol/pipeline.js';
import { overLimit } from '../protocol/limits.js';
import { OPERATOR, permissionClaimOf, planDigest, type DecisionSigner, type ResponseSignature } from '../protocol/trust.js';
import {
  accept, refuse, TeamConfig, type Member, type MemberStatus, type Message, type Outcome, type ProtocolRequest,
  type RequestType, type Task,
} from '../protocol/types.js';
import { folderBackend, type EventStore, type InboxStore, type RequestStore, type StoreBackend, type TaskStore } from './backend.js';
import { updateClaudeActivity } from './claude.js';
import { EventLog } from './events.js';
import { checkFileSync, checkFolderSync, DIR_MODE, folderWarnings, UnsafePathError, type FileProblem } from './fsx.js';
import { Mailbox, type Outgoing } from './inbox.js';
import { claimHolder, effectiveStatus, pidAlive, processStartTime } from './liveness.js';
import { Log } from './log.js';
import { TeamPaths } from './paths.js';
import { redact } from './redact.js';
import { RequestBook } from './requests.js';
import { PipelineStore } from './pipeline.js';
import { TaskBoard } from './tasks.js';
import { TrustFiles } from './trust.js';

/** A member as reported: its record plus the status its process really has. */
export interface MemberView extends Member {
  reportedStatus: MemberStatus;
  heartbeatAt: string | null;
}

/** Why a team folder could not be opened. */
export interface OpenError {
  message: string;
  hint: string;
}

/** Folders already warned about in this process: a warning is given once, not per command step. */
const warned = new Set<string>();

function firstWarnings(dir: string, warnings: string[]): string[] {
  if (warnings.length === 0 || warned.has(dir)) return [];
  warned.add(dir);
  return warnings;
}

/** A handle on one team folder. */
export class TeamStore {
  readonly paths: TeamPaths;
  /** Where the shared state lives: this folder, or a NATS server (then the folder keeps only local files). */
  readonly backend: StoreBackend;
  readonly events: EventStore;
  readonly tasks: TaskStore;
  readonly mail: InboxStore;
  readonly requests: RequestStore;
  readonly log: Log;
  readonly trust: TrustFiles;
  /** The staged pipeline, when the layout has one (its rules run inside claim and complete). */
  readonly pipeline: PipelineStore;
  /** Signs this process's plan decisions (the screen's root key, or an enrolled lead's key); null: it cannot sign. */
  decisionSigner: DecisionSigner | null = null;
  /** Members (name → pid) an earlier screen started: they trust that screen's key, not this one's (tmux attach). */
  readonly startedByEarlierScreen = new Map<string, number>();
  /** True for a short-lived CLI call: its claims are held by the member's process or the CLI's parent, not by itself. */
  shortLived = false;
  private namesCache: { key: string; names: Set<string> } | null = null;
  /** True in the process that owns the screen: it may send and ask as the operator. */
  private operatorSeat = false;

  private constructor(readonly dir: string, who: string, backend?: (paths: TeamPaths) => StoreBackend) {
    this.paths = new TeamPaths(dir);
    if (backend) {
      this.backend = backend(this.paths);
    } else {
      const events = new EventLog(this.paths.events);
      this.backend = folderBackend(this.paths, { events, tasks: new TaskBoard(this.paths, events), mail: new Mailbox(this.paths), requests: new RequestBook(this.paths) });
    }
    ({ events: this.events, tasks: this.tasks, mail: this.mail, requests: this.requests } = this.backend);
    this.log = new Log(this.paths.log, who);
    this.trust = new TrustFiles(this.paths);
    // The staged pipeline keeps its rules and state in the team folder: it runs on the folder board only.
    const board = this.tasks instanceof TaskBoard ? this.tasks : null;
    this.pipeline = new PipelineStore(dir, board, this.events as EventLog, this.log);
    if (board) board.onBlocked = (task) => this.pipeline.storyBlocked(task);
  }

  /** This process is the teamux screen: from now on it may send and open requests as the operator. */
  actAsOperator(): void {
    this.operatorSeat = true;
  }

  /**
   * Whether `name` may send from this process: a member, or the operator in the screen's process (the
   * one that called actAsOperator, or holds the screen's root signer, whose key never leaves it).
   */
  private async maySend(name: string): Promise<boolean> {
    if (name === OPERATOR) return this.operatorSeat || this.decisionSigner?.identity === OPERATOR;
    return (await this.memberNames()).has(name);
  }

  /**
   * Open an existing team folder; a missing, unreadable or unsafe one is a value, not an exception.
   * The folder is resolved to its real path, its subfolders must be real folders (not links), and
   * `warnings` says (once per process) if someone else owns it or others can write to it.
   */
  static async open(dir: string, who = 'cli'): Promise<{ ok: true; store: TeamStore; warnings: string[] } | { ok: false; error: OpenError }> {
    const real = await fsp.realpath(path.resolve(dir)).catch(() => path.resolve(dir));
    const store = new TeamStore(real, who);
    const unsafe = store.unsafeFolder();
    if (unsafe) return { ok: false, error: { message: unsafe.message, hint: unsafe.hint } };
    const cfg = await store.readConfig();
    if (!cfg.ok) return { ok: false, error: cfg.error };
    const warnings = firstWarnings(real, folderWarnings(real));
    for (const w of warnings) store.log.warn(w);
    return { ok: true, store, warnings };
  }

  /**
   * Open a team whose shared state lives in `backend` (NATS): `dir` is this machine's local folder for
   * the log, transcripts and spawn files (created if missing); the team must exist in the backend.
   */
  static async openOn(dir: string, backend: (paths: TeamPaths) => StoreBackend, who = 'cli', create = false): Promise<{ ok: true; store: TeamStore; warnings: string[] } | { ok: false; error: OpenError }> {
    await fsp.mkdir(path.resolve(dir), { recursive: true, mode: DIR_MODE });
    const store = new TeamStore(await fsp.realpath(path.resolve(dir)), who, backend);
    const unsafe = store.unsafeFolder();
    if (unsafe) return { ok: false, error: { message: unsafe.message, hint: unsafe.hint } };
    if (!create) {
      const cfg = await store.readConfig();
      if (!cfg.ok) return { ok: false, error: cfg.error };
    }
    return { ok: true, store, warnings: [] };
  }

  /** Open a folder for creation (used by init): created if missing, resolved to its real path. */
  static async forCreate(dir: string, who = 'cli', backend?: (paths: TeamPaths) => StoreBackend): Promise<TeamStore> {
    await fsp.mkdir(path.resolve(dir), { recursive: true, mode: DIR_MODE });
    const store = new TeamStore(await fsp.realpath(path.resolve(dir)), who, backend);
    const unsafe = store.unsafeFolder();
    if (unsafe) throw unsafe;
    return store;
  }

  /** The first subfolder (or top-level file) that is a link or of the wrong kind, as an error; null when all are sound. */
  private unsafeFolder(): UnsafePathError | null {
    const p = this.paths;
    for (const sub of p.guardedFolders) {
      try {
        checkFolderSync(sub);
      } catch (err) {
        if (err instanceof UnsafePathError) return err;
        throw err;
      }
    }
    for (const file of p.guardedFiles) {
      try {
        checkFileSync(file);
      } catch (err) {
        if (err instanceof UnsafePathError) return err;
        throw err;
      }
    }
    return null;
  }

  /** Read and check team.json. */
  async readConfig(): Promise<{ ok: true; config: TeamConfig } | { ok: false; error: OpenError }> {
    let raw = await this.backend.shared.readRaw();
    // An editor or a shell redirect that writes team.json in place leaves it empty or cut for a moment:
    // read again a few times (25 → 200 ms apart, 375 ms in all) before calling the file broken.
    for (let wait = 25; raw !== undefined && !raw.ok && wait <= 200; wait *= 2) {
      await new Promise((r) => setTimeout(r, wait));
      raw = await this.backend.shared.readRaw();
    }
    if (raw === undefined) {
      return this.backend.kind === 'folder'
        ? { ok: false, error: { message: `no team at ${this.dir} (${this.paths.config} does not exist)`, hint: 'create one with `teamux init LAYOUT.yaml`, or pass the folder it printed with --team-dir' } }
        : { ok: false, error: { message: `no team ${path.basename(this.dir)} on ${this.backend.where}`, hint: 'create it there with `teamux init LAYOUT.yaml --store URL`, or check --team' } };
    }
    if (!raw.ok) return { ok: false, error: { message: raw.message, hint: raw.hint } };
    const file = raw.where;
    const parsed = TeamConfig.safeParse(raw.json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return { ok: false, error: { message: `${file}: ${issue.path.join('.') || '(top)'}: ${issue.message}`, hint: 'fix the file by hand or re-create it with `teamux init`' } };
    }
    return { ok: true, config: parsed.data };
  }

  /** The team config; throws only if the file vanished after open (a bug or a race with rm). */
  async config(): Promise<TeamConfig> {
    const r = await this.readConfig();
    if (!r.ok) throw new Error(r.error.message);
    return r.config;
  }

  /** Write the whole config atomically (init and refresh). */
  async writeConfig(config: TeamConfig): Promise<void> {
    await this.backend.shared.write(TeamConfig.parse(config));
  }

  /** One member by name. */
  async member(name: string): Promise<Outcome<Member>> {
    const m = (await this.config()).members.find((x) => x.name === name);
    return m ? accept(m) : refuse('unknown_member', `${JSON.stringify(name)} is not a member of this team`);
  }

  /** Every member with its liveness-checked status. */
  async roster(): Promise<MemberView[]> {
    const cfg = await this.config();
    const now = Date.now();
    return Promise.all(cfg.members.map(async (m) => {
      const hb = await this.heartbeatAt(m.name);
      // A pid on another machine says nothing here: with a shared backend, heartbeats alone tell.
      const seen = this.backend.shared.remoteLiveness ? { ...m, pid: null } : m;
      return { ...m, reportedStatus: effectiveStatus(seen, hb, now), heartbeatAt: hb === null ? null : new Date(hb).toISOString() };
    }));
  }

  /** Change fields of a member record under the config lock, recording the status change. */
  async updateMember(name: string, patch: Partial<Pick<Member, 'status' | 'pid' | 'pidStart' | 'joinedAt' | 'exitCode'>>): Promise<Outcome<Member>> {
    const result = await this.backend.shared.modify(() => this.config(), async (cfg) => {
      const i = cfg.members.findIndex((m) => m.name === name);
      if (i < 0) return { value: refuse<Member>('unknown_member', `${JSON.stringify(name)} is not a member of this team`) };
      const next = { ...cfg.members[i]!, ...patch };
      cfg.members[i] = next;
      return { config: cfg, value: accept(next) };
    });
    if (result.ok && patch.status !== undefined) {
      const type = patch.joinedAt ? 'member_joined' : (`member_${patch.status}` as const);
      await this.events.record(type, { member: name, status: patch.status, pid: patch.pid, exitCode: patch.exitCode });
    }
    return result;
  }

  /** Add a member to the roster (a teammate spawned while the team runs). */
  async addMember(member: Member): Promise<Outcome<Member>> {
    const r = await this.backend.shared.modify(() => this.config(), async (cfg) => {
      if (cfg.members.some((m) => m.name === member.name)) return { value: refuse<Member>('duplicate', `${member.name} is already a member of this team`) };
      const long = overLimit({ role: member.role });
      if (long) return { value: long };
      if (member.name === OPERATOR) return { value: refuse<Member>('invalid_input', `the name "${member.name}" is reserved for the person at the teamux screen`) };
      cfg.members.push(member);
      return { config: cfg, value: accept(member) };
    });
    if (r.ok) await this.events.record('member_joined', { member: member.name, role: member.role, kind: member.kind });
    return r;
  }

  /** Record that a member's process started. */
  async memberStarted(name: string, pid: number | null): Promise<Outcome<Member>> {
    // null: the pid the screen recorded stands (a process inside a sandbox, whose own pid means nothing outside).
    return this.updateMember(name, { status: 'working', ...(pid === null ? {} : { pid, pidStart: processStartTime(pid) }), joinedAt: new Date().toISOString(), exitCode: null });
  }

  /** Write the member's heartbeat file. */
  async heartbeat(name: string): Promise<void> {
    await this.backend.shared.heartbeat(name);
  }

  private async heartbeatAt(name: string): Promise<number | null> {
    return this.backend.shared.heartbeatAt(name);
  }

  /** Member names, cached while team.json is unchanged (sending is the hot path). */
  private async memberNames(): Promise<Set<string>> {
    const key = await this.backend.shared.version();
    if (!this.namesCache || this.namesCache.key !== key) {
      this.namesCache = { key, names: new Set((await this.config()).members.map((m) => m.name)) };
    }
    return this.namesCache.names;
  }

  /** Send a message; both ends must be members (the operator may send, e.g. its plan decisions). */
  async send(out: Outgoing): Promise<Outcome<Message>> {
    const names = await this.memberNames();
    if (!(await this.maySend(out.from))) return refuse('unknown_member', operatorRefusal(out.from) ?? `sender ${JSON.stringify(out.from)} is not a member of this team`);
    // Anyone may write to the operator: its inbox is read on the screen.
    if (!names.has(out.to) && out.to !== OPERATOR) return refuse('unknown_member', `recipient ${JSON.stringify(out.to)} is not a member of this team`);
    const msg = this.mail.compose(out);
    await this.mail.deliver(msg);
    await this.events.record('message_sent', { id: msg.id, from: msg.from, to: msg.to, messageType: msg.type, excerpt: excerpt(redact(msg.text)), request_id: msg.request_id });
    // An idle notification is also the sender's status: the board shows it idle until it works again.
    if (msg.type === 'idle_notification') await this.updateMember(msg.from, { status: 'idle' });
    return accept(msg);
  }

  /** Deliver a broadcast to every member except the sender. */
  async broadcast(from: string, text: string): Promise<Outcome<Message[]>> {
    const cfg = await this.config();
    if (!(await this.maySend(from))) return refuse('unknown_member', operatorRefusal(from) ?? `sender ${JSON.stringify(from)} is not a member of this team`);
    const sent: Message[] = [];
    for (const m of cfg.members) {
      if (m.name === from) continue;
      const r = await this.send({ from, to: m.name, type: 'broadcast', text });
      if (r.ok) sent.push(r.value);
    }
    return accept(sent);
  }

  /**
   * Begin a new run (every `teamux start`): record its id in team.json and close the pending requests
   * of earlier runs as expired, each with an event. Returns the run id.
   */
  async startRun(): Promise<{ run: string; expired: ProtocolRequest[] }> {
    const run = `run-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
    await this.backend.shared.modify(() => this.config(), async (cfg) => ({ config: { ...cfg, run }, value: undefined }));
    const expired = await this.requests.expireEarlierRuns(run);
    for (const q of expired) await this.events.record('request_expired', { request_id: q.id, requestType: q.type, from: q.from, to: q.to, reason: q.expiredReason });
    return { run, expired };
  }

  /**
   * Open a request from `from` to `to` in the current run and deliver its *_request message. Only the
   * screen's process may ask as the operator; a plan request may go to the operator, who reads it on
   * the screen rather than from an inbox.
   */
  async openRequest(type: Exclude<RequestType, 'permission'>, from: string, to: string, body: string): Promise<Outcome<ProtocolRequest>> {
    const allowed = checkOpen(type, from, to);
    if (!allowed.ok) return allowed;
    const long = overLimit({ body });
    if (long) return long;
    if (!(await this.maySend(from))) return refuse('unknown_member', operatorRefusal(from) ?? `${JSON.stringify(from)} is not a member of this team`);
    if (!(to === OPERATOR && type === 'plan_approval')) {
      const target = await this.member(to);
      if (!target.ok) return target;
    }
    const req = await this.requests.create(type, from, to, body, (await this.config()).run);
    await this.events.record('request_opened', { request_id: req.id, requestType: type, from, to });
    if (to === OPERATOR) return accept(req);
    const sent = await this.send({ from, to, type: requestMessageType(type), text: body, request_id: req.id });
    if (!sent.ok) return sent;
    return accept(req);
  }

  /** Open a permission request from a Claude Code member (no message: its hook waits on the file). */
  async openPermission(from: string, to: string, tool: string, input: unknown): Promise<Outcome<ProtocolRequest>> {
    for (const who of to === OPERATOR ? [from] : [from, to]) {
      const m = await this.member(who);
      if (!m.ok) return m;
    }
    const req = await this.requests.create('permission', from, to, permissionSummary(tool, input), (await this.config()).run, { tool, input });
    await this.events.record('request_opened', { request_id: req.id, requestType: 'permission', from, to, tool });
    return accept(req);
  }

  /** The asker stops waiting for its request. */
  async withdrawRequest(id: string, by: string, reason: string): Promise<Outcome<ProtocolRequest>> {
    const long = overLimit({ reason });
    if (long) return long;
    const r = await this.requests.withdraw(id, by, reason);
    if (r.ok) await this.events.record('request_resolved', { request_id: id, requestType: r.value.type, by, approve: false, withdrawn: true, from: r.value.from });
    return r;
  }

  /**
   * Answer a request and deliver the *_response message to whoever asked. A plan decision is signed
   * by `signer` (the screen's root key for the operator, the lead's enrolled key for the lead) over
   * this team, the request's run, its author, the approver and the plan text; a permission answer by
   * the root key alone, over the tool call and the feedback; without a signature either is refused.
   */
  async answerRequest(id: string, by: string, approve: boolean, text: string, type?: ResponseInput['type'], signer = this.decisionSigner): Promise<Outcome<ProtocolRequest>> {
    const long = overLimit({ reason: text });
    if (long) return long;
    const found = await this.requests.get(id);
    if (!found.ok) return found;
    const q = found.value;
    const responseType = type ?? responseMessageType(q.type);
    let signed: ResponseSignature | null = null;
    const signs = q.type === 'plan_approval' || (q.type === 'permission' && signer?.signPermission !== undefined);
    if (signs && signer && signer.identity === by) {
      const pid = this.startedByEarlierScreen.get(q.from);
      if (pid !== undefined && (await this.config()).members.find((m) => m.name === q.from)?.pid === pid) {
        const then = q.type === 'permission' ? 'its own prompt asks in its pane after permission_timeout' : 'then answer its new plan';
        return refuse('untrusted_screen', `${q.from} was started by an earlier teamux screen and trusts only that screen's key, so this screen's answer would not count: restart ${q.from} here (C-a R), ${then}`);
      }
      const team = (await this.config()).name;
      // A permission answer is the operator's alone (only the root signer has signPermission).
      signed = q.type === 'permission'
        ? signer.signPermission!(permissionClaimOf(team, q, approve, text))
        : signer.sign({ team, run: q.run ?? '', requestId: q.id, member: q.from, approver: by, decision: approve ? 'approve' : 'reject', planSha256: planDigest(q.body) });
    }
    const r = await this.requests.answer(id, { type: responseType, by, approve, text, signed });
    if (!r.ok) return r;
    await this.events.record('request_resolved', { request_id: id, requestType: r.value.type, by, approve, from: r.value.from });
    // A permission answer goes to the asker's waiting hook; the asker works again from here on.
    if (r.value.type === 'permission') await updateClaudeActivity(this.paths, r.value.from, { state: 'working' });
    if (!answerIsMessaged(r.value.type) || responseType === 'permission_response') return r;
    const payload = r.value.type === 'shutdown' ? { approve, reason: text } : { approve, feedback: text };
    const sent = await this.send({ from: by, to: r.value.from, type: responseType, text, payload, request_id: id });
    if (!sent.ok) return sent;
    return r;
  }

  /** Claim a task (or the next ready one) as a member; the member is marked working. */
  async claim(by: string, id?: string): Promise<Outcome<Task>> {
    const m = await this.member(by);
    if (!m.ok) return m;
    const holder = claimHolder(m.value, this.shortLived);
    const r = this.pipeline.active()
      ? await this.pipeline.claim(by, id, (guard) => (this.tasks as TaskBoard).claim(by, id, holder, guard))
      : await this.tasks.claim(by, id, holder);
    if (r.ok) {
      // A member the host does not track by pid (one using the CLI) shows it is alive this way.
      if (m.value.pid === null) await this.heartbeat(by);
      if (m.value.status !== 'working' && m.value.status !== 'stopping') await this.updateMember(by, { status: 'working' });
    }
    return r;
  }

  /**
   * Hand an in_progress task to member `to` in one write: the old attempt ends `reassigned` and `to`'s
   * starts. The claim is held by `to`'s own process when team.json records one (else liveness
   * falls back to `to`'s reported status, as for a claim made by an update).
   */
  async reassign(by: string | null, id: string, to: string, why: string | null): Promise<Outcome<Task>> {
    const m = await this.member(to);
    if (!m.ok) return m;
    const holder = m.value.pid !== null ? { pid: m.value.pid, start: m.value.pidStart } : null;
    const r = this.pipeline.active()
      ? await this.pipeline.reassign(id, to, () => this.tasks.reassign(id, to, by, holder, why))
      : await this.tasks.reassign(id, to, by, holder, why);
    if (r.ok && m.value.status !== 'working' && m.value.status !== 'stopping' && m.value.status !== 'exited') await this.updateMember(to, { status: 'working' });
    return r;
  }

  /**
   * Reopen a completed or blocked task. On a pipeline, a story task blocked by its failed attempts is
   * retried through the pipeline's rules (store/pipeline.ts retry); other pipeline tasks are refused
   * with what to do instead. Returns the reopened task, or the fix task the retry made for the story.
   */
  async reopen(by: string | null, id: string, why: string | null): Promise<Outcome<Task>> {
    if (!this.pipeline.active()) return this.tasks.reopen(id, by, why);
    const story = await this.pipeline.storyOfBlockedTask(id);
    if (story === null) return this.tasks.reopen(id, by, why);
    const r = await this.pipeline.retry(by ?? OPERATOR, [story], why);
    if (!r.ok) return r;
    const taskId = r.value.reopen.includes(id) ? id : r.value.dispatched.find((d) => d.key.endsWith(`-${story}`))?.id ?? id;
    return this.tasks.get(taskId);
  }

  /** Complete a task as a member; returns it and the dependents that became ready. */
  async complete(by: string, id: string, result: string | null, fields: CompletionFields = {}): Promise<Outcome<{ task: Task; nowReady: string[] }>> {
    const m = await this.member(by);
    if (!m.ok) return m;
    const r = this.pipeline.active() ? await this.pipeline.complete(by, id, result, fields) : await this.tasks.complete(id, by, result);
    if (r.ok && m.value.pid === null) await this.heartbeat(by);
    return r;
  }

  /**
   * Cold recovery: release in_progress tasks whose claim is stale — the process that holds it is gone
   * (when the claim records one), or the owner has exited or is no longer a member. Each such
   * attempt ends `abandoned` and the task is claimable again. Returns what was released.
   */
  async releaseStale(): Promise<{ released: Task[]; problems: FileProblem[] }> {
    const roster = await this.roster();
    const gone = new Set(roster.filter((m) => m.reportedStatus === 'exited').map((m) => m.name));
    const known = new Set(roster.map((m) => m.name));
    // Only in_progress tasks are read: the task index picks them (a resumed board of 10,000 tasks is
    // not read whole before the screen comes up).
    const board = await this.tasks.list({ status: 'in_progress' });
    const released: Task[] = [];
    for (const t of board.tasks) {
      if (t.status !== 'in_progress' || t.owner === null) continue;
      const holderGone = t.holder !== null && !this.backend.shared.remoteLiveness && !pidAlive(t.holder.pid, t.holder.start);
      if (!holderGone && !gone.has(t.owner) && known.has(t.owner)) continue;
      const why = holderGone ? `the process that claimed it (pid ${t.holder!.pid}) is gone` : known.has(t.owner) ? `owner ${t.owner} has exited` : `owner ${t.owner} is not a member`;
      const r = await this.tasks.release(t.id, null, why);
      if (r.ok) released.push(r.value);
    }
    return { released, problems: board.problems };
  }
}

/** A one-line excerpt of a message for the event log and sidebar. */
export function excerpt(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : flat.slice(0, max - 1) + '…';
}

/** Why a process that is not the screen cannot act as the operator (null for other names). */
function operatorRefusal(name: string): string | null {
  return name === OPERATOR ? `"${OPERATOR}" is the person at the teamux screen; only the screen acts as ${OPERATOR}` : null;
}
