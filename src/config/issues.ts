/**
 * Turns zod's issues into the problems a layout author reads: one problem per unknown key, union
 * failures narrowed to the branch the value was evidently aiming at, and a hint where one helps
 * (did-you-mean for keys and enum values, quoting for numbers meant as strings, a safe name).
 */
import { z } from '../protocol/zod.js';
import { patternSource } from './messages.js';
import { NAME_PATTERN } from '../protocol/types.js';
import { didYouMean } from './suggest.js';

/** One thing wrong with a layout, at a path into the document. */
export interface Problem {
  path: PropertyKey[];
  at: 'value' | 'key';
  message: string;
  hint?: string;
}

/** `teammates[1].name` for `['teammates', 1, 'name']`; odd keys are quoted: `env["A B"]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (/^[A-Za-z0-9_-]+$/.test(String(seg))) out += out ? `.${String(seg)}` : String(seg);
    else out += `[${JSON.stringify(String(seg))}]`;
  }
  return out;
}

/** The plain value at `path` inside parsed YAML data. */
export function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let v = data;
  for (const seg of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[seg];
  }
  return v;
}

function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (;;) {
    if (s instanceof z.ZodDefault || s instanceof z.ZodOptional || s instanceof z.ZodPrefault) s = s.unwrap() as z.ZodType;
    else if (s instanceof z.ZodPipe) s = s.in as z.ZodType;
    else return s;
  }
}

/** The keys a map at `path` may hold, per the schema (object keys, or a record's enum keys). */
export function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  const s = unwrap(schema);
  if (path.length === 0) {
    if (s instanceof z.ZodObject) return Object.keys(s.shape);
    if (s instanceof z.ZodRecord) {
      const key = unwrap(s.keyType as z.ZodType);
      return key instanceof z.ZodEnum ? (key.options as string[]) : [];
    }
    if (s instanceof z.ZodUnion) return (s.options as z.ZodType[]).flatMap((o) => knownKeysAt(o, path));
    return [];
  }
  const [seg, ...rest] = path;
  if (s instanceof z.ZodObject) {
    const child = (s.shape as Record<string, z.ZodType>)[String(seg)];
    return child ? knownKeysAt(child, rest) : [];
  }
  if (s instanceof z.ZodArray) return knownKeysAt(s.element as z.ZodType, rest);
  if (s instanceof z.ZodRecord) return knownKeysAt(s.valueType as z.ZodType, rest);
  if (s instanceof z.ZodUnion) return (s.options as z.ZodType[]).flatMap((o) => knownKeysAt(o, path));
  return [];
}

/** A name that would pass NAME_PATTERN, made from what the user wrote. */
function safeName(input: string): string | undefined {
  const slug = input
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[^a-z]+/, '')
    .replace(/-+$/, '')
    .slice(0, 32);
  return NAME_PATTERN.test(slug) ? slug : undefined;
}

function joinHint(...parts: (string | undefined)[]): string | undefined {
  const text = parts.filter(Boolean).join(' ');
  return text || undefined;
}

/** The union branch the input was aiming at: the only one whose complaint is not about its type. */
function aimedBranch(
  branches: readonly (readonly z.core.$ZodIssue[])[],
  input: unknown,
): readonly z.core.$ZodIssue[] | undefined {
  const kind = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
  const typeMismatch = (iss: z.core.$ZodIssue): boolean =>
    iss.path.length === 0 &&
    (iss.code === 'invalid_type' ||
      (iss.code === 'invalid_value' && (iss.values.length === 1 || !iss.values.some((v) => kind(v) === kind(input)))));
  const aimed = branches.filter((b) => !b.some(typeMismatch));
  return aimed.length === 1 ? aimed[0] : undefined;
}

function hintFor(iss: z.core.$ZodIssue, input: unknown): string | undefined {
  switch (iss.code) {
    case 'invalid_value': {
      if (typeof input !== 'string' || !iss.values.every((v) => typeof v === 'string')) return undefined;
      const values = iss.values as string[];
      const near = didYouMean(input, values);
      const listed = iss.message.includes(values.join(', '));
      return joinHint(near && `did you mean "${near}"?`, listed ? undefined : `valid: ${values.join(', ')}`);
    }
    case 'invalid_type':
      if (iss.expected === 'string' && (typeof input === 'number' || typeof input === 'boolean')) {
        return `quote it to make it a string: "${String(input)}"`;
      }
      if (iss.expected === 'boolean' && typeof input === 'string' && /^(?:yes|no|on|off|y|n)$/i.test(input)) {
        return 'YAML 1.2 reads this as a string; write true or false';
      }
      return undefined;
    case 'invalid_format':
      if (iss.format === 'regex' && 'pattern' in iss && patternSource(iss.pattern) === NAME_PATTERN.source) {
        const fix = typeof input === 'string' ? safeName(input) : undefined;
        return joinHint('names are lowercase letters, digits, "-" and "_", starting with a letter;', fix ? `try "${fix}"` : undefined);
      }
      return undefined;
    case 'custom': {
      const hint = (iss.params as { hint?: unknown } | undefined)?.hint;
      return typeof hint === 'string' ? hint : undefined;
    }
    default:
      return undefined;
  }
}

/** Every problem zod found in `data` (parsed with `schema`), one per offending node. */
export function problemsFromIssues(
  issues: readonly z.core.$ZodIssue[],
  data: unknown,
  schema: z.ZodType,
  prefix: readonly PropertyKey[] = [],
): Problem[] {
  const out: Problem[] = [];
  for (const iss of issues) {
    const path = [...prefix, ...iss.path];
    if (iss.code === 'invalid_union') {
      const branch = aimedBranch(iss.errors, valueAt(data, path));
      if (branch) out.push(...problemsFromIssues(branch, data, schema, path));
      else out.push({ path, at: 'value', message: iss.message });
    } else if (iss.code === 'invalid_key') {
      for (const inner of iss.issues) out.push({ path, at: 'key', message: inner.message });
    } else if (iss.code === 'unrecognized_keys') {
      const known = knownKeysAt(schema, path);
      for (const key of iss.keys) {
        const near = didYouMean(key, known);
        const hint = near ? `did you mean "${near}"?` : known.length ? `expected one of: ${known.join(', ')}` : undefined;
        out.push({ path: [...path, key], at: 'key', message: iss.message, ...(hint ? { hint } : {}) });
      }
    } else {
      const hint = hintFor(iss, valueAt(data, path));
      out.push({ path, at: 'value', message: iss.message, ...(hint ? { hint } : {}) });
    }
  }
  return out;
}
