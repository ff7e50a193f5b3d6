/**
 * Demo scripts: what a scripted member says, turn by turn. A script is a YAML file (one per member,
 * the file name is the member name) or an object built in code; both go through one zod schema, which
 * is the source of the types and of the error messages (`lead.yaml:12:5 steps[1].reply: ...`).
 * The schema's input type is what authors write; its output is a normalised form the player reads
 * (every step tagged `turn` or `error`, regexes compiled, defaults filled in). This file only parses;
 * playing a script is player.ts's business.
 */
import { readdir, readFile } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { LineCounter, parseDocument, isMap, isScalar, type Document } from 'yaml';
import { z } from '../protocol/zod.js';

const STOP_REASONS = ['end_turn', 'tool_use', 'max_tokens', 'stop_sequence', 'pause_turn', 'refusal'] as const;
const ERROR_TYPES = [
  'invalid_request_error',
  'authentication_error',
  'billing_error',
  'permission_error',
  'not_found_error',
  'request_too_large',
  'rate_limit_error',
  'timeout_error',
  'api_error',
  'overloaded_error',
] as const;

/** A `/pattern/flags` string is a regex; anything else is a case-sensitive substring. */
const Matcher = z.string().min(1).transform((source, ctx): RegExp | string => {
  const m = /^\/(.+)\/([a-z]*)$/s.exec(source);
  if (!m) return source;
  try {
    return new RegExp(m[1]!, m[2]);
  } catch (e) {
    ctx.addIssue({ code: 'custom', message: `invalid regex ${source}: ${(e as Error).message}` });
    return z.NEVER;
  }
});

// `else: skip` makes the step optional: when the condition does not hold, the step is passed over and
// the next one is considered for the same request (default `wait`: answer idle_reply, stay put).
// `all_user_contains` lists texts that must each appear in some user message of the conversation so
// far: it holds however the messages were batched into turns, which `last_user_contains` cannot.
const When = z
  .strictObject({ last_user_contains: Matcher.optional(), all_user_contains: z.array(Matcher).min(1).optional(), else: z.enum(['wait', 'skip']).default('wait') })
  .refine((w) => w.last_user_contains !== undefined || w.all_user_contains !== undefined, { message: 'a `when` needs last_user_contains or all_user_contains' });

const ToolUse = z.strictObject({
  name: z.string().min(1),
  input: z.record(z.string(), z.unknown()).default({}),
});

const ReplyBlock = z
  .strictObject({ text: z.string().min(1).optional(), tool_use: ToolUse.optional() })
  .superRefine((b, ctx) => {
    if ((b.text === undefined) === (b.tool_use === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'a reply block has exactly one of `text` or `tool_use`' });
    }
  })
  .transform((b): ReplyBlock => (b.tool_use ? { type: 'tool_use', ...b.tool_use } : { type: 'text', text: b.text! }));

const ErrorSpec = z.strictObject({
  status: z.number().int().min(400).max(599),
  type: z.enum(ERROR_TYPES).optional(),
  message: z.string().optional(),
  times: z.number().int().min(1).default(1),
  retry_after: z.number().nonnegative().optional(),
  mid_stream: z.boolean().default(false),
});

const Step = z
  .strictObject({
    when: When.optional(),
    reply: z.array(ReplyBlock).min(1).optional(),
    stop_reason: z.enum(STOP_REASONS).optional(),
    error: ErrorSpec.optional(),
  })
  .superRefine((s, ctx) => {
    if ((s.reply === undefined) === (s.error === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'a step has exactly one of `reply` or `error`' });
    }
    if (s.error && s.stop_reason) {
      ctx.addIssue({ code: 'custom', path: ['stop_reason'], message: '`stop_reason` only applies to `reply` steps' });
    }
  })
  .transform((s): Step => {
    const when = s.when ? { lastUserContains: s.when.last_user_contains, allUserContains: s.when.all_user_contains ?? [], skip: s.when.else === 'skip' } : undefined;
    if (s.error) {
      const e = s.error;
      return {
        kind: 'error',
        when,
        status: e.status,
        errorType: e.type ?? errorTypeFor(e.status),
        message: e.message ?? defaultErrorMessage(e.status),
        times: e.times,
        retryAfter: e.retry_after,
        midStream: e.mid_stream,
      };
    }
    const reply = s.reply!;
    const stopReason = s.stop_reason ?? (reply.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn');
    return { kind: 'turn', when, reply, stopReason };
  });

/** The one schema for a demo script. */
export const ScriptSchema = z.strictObject({
  idle_reply: z.string().min(1).default('(waiting)'),
  steps: z.array(Step),
});

/** What a script author writes (YAML or an inline object). */
export type ScriptInput = z.input<typeof ScriptSchema>;
/** A validated, normalised script. */
export type Script = z.output<typeof ScriptSchema>;
export type StopReason = (typeof STOP_REASONS)[number];
export type ErrorType = (typeof ERROR_TYPES)[number];
export type ReplyBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; name: string; input: Record<string, unknown> };
export type StepWhen = { lastUserContains: RegExp | string | undefined; allUserContains: Array<RegExp | string>; skip: boolean } | undefined;
export type Step =
  | { kind: 'turn'; when: StepWhen; reply: ReplyBlock[]; stopReason: StopReason }
  | {
      kind: 'error';
      when: StepWhen;
      status: number;
      errorType: ErrorType;
      message: string;
      times: number;
      retryAfter: number | undefined;
      midStream: boolean;
    };

/** One problem in a script, located in its source. line/column are 1-based, 0 when unknown. */
export interface ScriptError {
  file: string;
  line: number;
  column: number;
  /** Dotted path inside the script, e.g. `steps[1].reply[0].text`; empty for syntax errors. */
  path: string;
  message: string;
}

export type ScriptResult<T> = { ok: true; value: T } | { ok: false; errors: ScriptError[] };

/** Render one error the way editors and terminals link it: `file:line:col path: message`. */
export function formatScriptError(e: ScriptError): string {
  const where = e.line > 0 ? `${e.file}:${e.line}:${e.column}` : e.file;
  return `${where} ${e.path ? `${e.path}: ` : ''}${e.message}`;
}

// Scripts that came out of this module's validation, so they are not validated twice.
const validated = new WeakSet<object>();

/** True when `value` is a `Script` produced by this module (not raw input). */
export function isValidatedScript(value: unknown): value is Script {
  return typeof value === 'object' && value !== null && validated.has(value);
}

/** Parse and validate a script's YAML text; `file` names it in errors. */
export function parseScript(text: string, file: string): ScriptResult<Script> {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      errors: doc.errors.map((err) => {
        const pos = lineCounter.linePos(err.pos[0]);
        const message = err.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
        return { file, line: pos.line, column: pos.col, path: '', message };
      }),
    };
  }
  const parsed = ScriptSchema.safeParse(doc.toJS() ?? {});
  if (parsed.success) return { ok: true, value: remember(parsed.data) };
  return {
    ok: false,
    errors: parsed.error.issues.map((issue) => {
      const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
      const path = [...issue.path, ...keys.slice(0, 1)].filter((k) => typeof k !== 'symbol') as (string | number)[];
      const offset = offsetOf(doc, path);
      const pos = offset === undefined ? { line: 0, col: 0 } : lineCounter.linePos(offset);
      return { file, line: pos.line, column: pos.col, path: formatPath(issue.path), message: issue.message.replace(/^Invalid input: /, '') };
    }),
  };
}

/** Validate a script built in code; `name` labels it in errors (which carry no line). */
export function scriptFromObject(input: unknown, name = '<inline>'): ScriptResult<Script> {
  if (isValidatedScript(input)) return { ok: true, value: input };
  const parsed = ScriptSchema.safeParse(input);
  if (parsed.success) return { ok: true, value: remember(parsed.data) };
  const errors = parsed.error.issues.map((issue) => ({
    file: name,
    line: 0,
    column: 0,
    path: formatPath(issue.path),
    message: issue.message.replace(/^Invalid input: /, ''),
  }));
  return { ok: false, errors };
}

/** Load every `*.yaml` / `*.yml` in `dir` as a script keyed by file name (`lead.yaml` → `lead`). */
export async function loadScriptDir(dir: string): Promise<ScriptResult<Map<string, Script>>> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => ['.yaml', '.yml'].includes(extname(n))).sort();
  } catch (e) {
    const message = `cannot read script folder: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`;
    return { ok: false, errors: [{ file: dir, line: 0, column: 0, path: '', message }] };
  }
  if (names.length === 0) {
    const message = 'no scripts found (expected one <member>.yaml per member)';
    return { ok: false, errors: [{ file: dir, line: 0, column: 0, path: '', message }] };
  }
  const scripts = new Map<string, Script>();
  const errors: ScriptError[] = [];
  for (const name of names) {
    const file = join(dir, name);
    const result = parseScript(await readFile(file, 'utf8'), file);
    if (result.ok) scripts.set(basename(name, extname(name)), result.value);
    else errors.push(...result.errors);
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: scripts };
}

/** The error type the real API uses for an HTTP status. */
export function errorTypeFor(status: number): ErrorType {
  const byStatus: Record<number, ErrorType> = {
    400: 'invalid_request_error',
    401: 'authentication_error',
    402: 'billing_error',
    403: 'permission_error',
    404: 'not_found_error',
    413: 'request_too_large',
    429: 'rate_limit_error',
    504: 'timeout_error',
    529: 'overloaded_error',
  };
  return byStatus[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

function defaultErrorMessage(status: number): string {
  if (status === 529) return 'Overloaded';
  if (status === 429) return 'Number of request tokens has exceeded your per-minute rate limit (scripted)';
  if (status >= 500) return 'Internal server error (scripted)';
  return `Scripted error ${status}`;
}

function remember(script: Script): Script {
  validated.add(script);
  return script;
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const k of path) {
    if (typeof k === 'number') out += `[${k}]`;
    else out += out ? `.${String(k)}` : String(k);
  }
  return out;
}

/** Source offset of the deepest node on `path` that exists; keys point at the key, not the value. */
function offsetOf(doc: Document, path: (string | number)[]): number | undefined {
  for (let depth = path.length; depth >= 0; depth--) {
    const parent = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth - 1), true);
    const last = path[depth - 1];
    if (depth > 0 && isMap(parent)) {
      const pair = parent.items.find((p) => isScalar(p.key) && p.key.value === last);
      const keyRange = pair && isScalar(pair.key) ? pair.key.range : undefined;
      if (keyRange) return keyRange[0];
    }
    const node = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth), true);
    const range = (node as { range?: [number, number, number] } | null)?.range;
    if (range) return range[0];
  }
  return undefined;
}
