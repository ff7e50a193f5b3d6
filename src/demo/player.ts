/**
 * The script player: which step a member is on, and what the next request gets. Position is kept per
 * member (not per script), so two members that fall back to the same default script each walk it
 * from the top. A step is consumed when it is answered, at request time: a `reply` step advances
 * once; an `error` step advances after it has answered `times` requests; a step whose `when` does
 * not match the last user message answers the script's idle reply and does not advance. A
 * client that drops a streamed reply half way has still consumed the step.
 * `nextAnswer` is the pure core; `ScriptPlayer` only holds the per-member positions.
 */
import type { ReplyBlock, Script, Step, StopReason, ErrorType } from './script.js';

/** Where a member is in its script. */
export interface PlayerState {
  /** Index of the next step to play. */
  step: number;
  /** Error answers already given by the current (error) step. */
  errorsServed: number;
}

/** What to send back for one request. `step` is the index played, or null for idle/finished. */
export type Answer =
  | { kind: 'turn'; step: number | null; outcome: 'step' | 'idle' | 'finished'; reply: ReplyBlock[]; stopReason: StopReason }
  | {
      kind: 'error';
      step: number;
      status: number;
      errorType: ErrorType;
      message: string;
      retryAfter: number | undefined;
      midStream: boolean;
    };

export const START: PlayerState = { step: 0, errorsServed: 0 };
export const FINISHED_TEXT = '(script finished)';

/** The user side of a request: the last user message, and every user message, as text. */
export interface UserText {
  last: string;
  all: string;
}

/** Does a step's condition hold for this request? */
function holds(when: NonNullable<Step['when']>, text: UserText): boolean {
  if (when.lastUserContains !== undefined && !matches(when.lastUserContains, text.last)) return false;
  return when.allUserContains.every((p) => matches(p, text.all));
}

/** Decide the answer to a request with this user text, and the state after it. */
export function nextAnswer(script: Script, state: PlayerState, lastUserText: UserText | string): { answer: Answer; state: PlayerState } {
  const text = typeof lastUserText === 'string' ? { last: lastUserText, all: lastUserText } : lastUserText;
  const step: Step | undefined = script.steps[state.step];
  if (!step) {
    const reply: ReplyBlock[] = [{ type: 'text', text: FINISHED_TEXT }];
    return { answer: { kind: 'turn', step: null, outcome: 'finished', reply, stopReason: 'end_turn' }, state };
  }
  if (step.when && !holds(step.when, text)) {
    if (step.when.skip) return nextAnswer(script, { step: state.step + 1, errorsServed: 0 }, text);
    const reply: ReplyBlock[] = [{ type: 'text', text: script.idle_reply }];
    return { answer: { kind: 'turn', step: null, outcome: 'idle', reply, stopReason: 'end_turn' }, state };
  }
  if (step.kind === 'turn') {
    const answer: Answer = { kind: 'turn', step: state.step, outcome: 'step', reply: step.reply, stopReason: step.stopReason };
    return { answer, state: { step: state.step + 1, errorsServed: 0 } };
  }
  const served = state.errorsServed + 1;
  const { status, errorType, message, retryAfter, midStream } = step;
  const answer: Answer = { kind: 'error', step: state.step, status, errorType, message, retryAfter, midStream };
  const next = served >= step.times ? { step: state.step + 1, errorsServed: 0 } : { step: state.step, errorsServed: served };
  return { answer, state: next };
}

/** The placeholder a tool input may hold for the newest request id in the conversation (for respond_shutdown). */
export const LAST_REQUEST_ID = '{{last_request_id}}';

/** Replace LAST_REQUEST_ID in a reply's tool inputs with the newest `request_id="…"` the user side has shown. */
export function fillPlaceholders(reply: ReplyBlock[], text: UserText): ReplyBlock[] {
  if (!reply.some((b) => b.type === 'tool_use' && JSON.stringify(b.input).includes(LAST_REQUEST_ID))) return reply;
  const ids = [...text.all.matchAll(/request_id="(req-[a-z0-9-]+)"/g)].map((m) => m[1]!);
  const id = ids[ids.length - 1] ?? '';
  return reply.map((b) => (b.type === 'tool_use' ? { ...b, input: JSON.parse(JSON.stringify(b.input).replaceAll(LAST_REQUEST_ID, id)) as Record<string, unknown> } : b));
}

/** Holds each member's position in its script; `scriptFor` picks a member's script (or none). */
export class ScriptPlayer {
  // configuration, fixed at construction
  private readonly scripts: ReadonlyMap<string, Script>;
  private readonly defaultName: string;
  // per-member positions, cleared by reset()
  private readonly positions = new Map<string, PlayerState>();

  constructor(scripts: ReadonlyMap<string, Script>, defaultName = 'default') {
    this.scripts = scripts;
    this.defaultName = defaultName;
  }

  /** The script name a member plays: its own, else the default one, else undefined. */
  scriptFor(member: string): string | undefined {
    if (this.scripts.has(member)) return member;
    return this.scripts.has(this.defaultName) ? this.defaultName : undefined;
  }

  /** Names of the scripts this player knows. */
  names(): string[] {
    return [...this.scripts.keys()];
  }

  /** Answer one request from `member`, advancing its position; undefined when it has no script. */
  play(member: string, lastUserText: UserText | string): { script: string; answer: Answer } | undefined {
    const name = this.scriptFor(member);
    const script = name === undefined ? undefined : this.scripts.get(name);
    if (name === undefined || !script) return undefined;
    const { answer, state } = nextAnswer(script, this.positions.get(member) ?? START, lastUserText);
    this.positions.set(member, state);
    const text = typeof lastUserText === 'string' ? { last: lastUserText, all: lastUserText } : lastUserText;
    return { script: name, answer: answer.kind === 'turn' ? { ...answer, reply: fillPlaceholders(answer.reply, text) } : answer };
  }

  /** A member's current position (START when it has not played yet). */
  position(member: string): PlayerState {
    return this.positions.get(member) ?? START;
  }

  /** Rewind one member, or everyone, to the top of their scripts. */
  reset(member?: string): void {
    if (member === undefined) this.positions.clear();
    else this.positions.delete(member);
  }
}

/** The member a request speaks for: `x-teamux-member` header, else `metadata.user_id`, else `fallback`. */
export function memberOf(header: string | string[] | undefined, body: unknown, fallback: string): string {
  const fromHeader = Array.isArray(header) ? header[0] : header;
  if (fromHeader && fromHeader.trim()) return fromHeader.trim();
  const metadata = isRecord(body) ? body['metadata'] : undefined;
  const userId = isRecord(metadata) ? metadata['user_id'] : undefined;
  if (typeof userId === 'string' && userId.trim()) return userId.trim();
  return fallback;
}

/** Text of the last `user` message: plain text, text blocks and tool_result contents, one per line. */
export function lastUserText(body: unknown): string {
  return userText(body).last;
}

/** Text of the last user message and of all user messages of a request. */
export function userText(body: unknown): UserText {
  const messages = isRecord(body) && Array.isArray(body['messages']) ? body['messages'] : [];
  const users = messages.filter((m): m is Record<string, unknown> => isRecord(m) && m['role'] === 'user').map((m) => textOf(m['content']));
  return { last: users[users.length - 1] ?? '', all: users.join('\n') };
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const block of content) {
    if (!isRecord(block)) continue;
    if (block['type'] === 'text' && typeof block['text'] === 'string') parts.push(block['text']);
    if (block['type'] === 'tool_result') parts.push(textOf(block['content']));
  }
  return parts.join('\n');
}

function matches(pattern: RegExp | string, text: string): boolean {
  if (typeof pattern === 'string') return text.includes(pattern);
  pattern.lastIndex = 0;
  return pattern.test(text);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
