/**
 * The words of the layout validator: how a zod issue reads to a person editing a YAML file. One error
 * map turns every raw issue into `expected <what>, got <value>`, so messages stay uniform whichever
 * schema raised them; schemas that know better (names, layouts) pass their own message to zod.
 */
import type { z } from '../protocol/zod.js';

const MAX_SHOWN = 40;

/** How a YAML value reads in a message: strings quoted, scalars as written, collections by kind. */
export function describeValue(value: unknown): string {
  if (value === undefined || value === null) return 'nothing';
  if (typeof value === 'string') {
    const shown = value.length > MAX_SHOWN ? `${value.slice(0, MAX_SHOWN)}…` : value;
    return JSON.stringify(shown);
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return typeof value;
}

/** The phrase for a zod type name in "expected <phrase>". */
export function expectedPhrase(expected: string): string {
  switch (expected) {
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'int':
      return 'a whole number';
    case 'boolean':
      return 'true or false';
    case 'object':
    case 'record':
    case 'map':
      return 'a mapping';
    case 'array':
    case 'tuple':
      return 'a list';
    default:
      return expected;
  }
}

/** A regular expression source as users see it (without the surrounding slashes). */
export function patternSource(pattern: unknown): string {
  const text = String(pattern);
  const m = /^\/(.*)\/[a-z]*$/s.exec(text);
  return m?.[1] ?? text;
}

function sizeMessage(
  direction: 'small' | 'big',
  origin: string,
  limit: number | bigint,
  inclusive: boolean | undefined,
  input: unknown,
): string {
  const n = Number(limit);
  if (origin === 'array' || origin === 'set') {
    if (direction === 'small') return n <= 1 ? 'expected a non-empty list' : `expected at least ${n} items`;
    return `expected at most ${n} items`;
  }
  if (origin === 'string') {
    if (direction === 'small') return n <= 1 ? 'expected a non-empty string' : `expected at least ${n} characters`;
    return `expected at most ${n} characters`;
  }
  const op = direction === 'small' ? (inclusive ? '>=' : '>') : inclusive ? '<=' : '<';
  return `expected a number ${op} ${n}, got ${describeValue(input)}`;
}

/** The error map for every layout parse: one plain sentence per issue, never a stack trace. */
export const layoutErrorMap: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'missing required key';
      return `expected ${expectedPhrase(issue.expected)}, got ${describeValue(issue.input)}`;
    case 'unrecognized_keys':
      return 'unknown key';
    case 'invalid_value': {
      const shown = issue.values.map((v) => (typeof v === 'string' ? v : String(v)));
      if (shown.length === 1) return `expected ${shown[0]}, got ${describeValue(issue.input)}`;
      return `expected one of ${shown.join(', ')}, got ${describeValue(issue.input)}`;
    }
    case 'too_small':
      return sizeMessage('small', issue.origin, issue.minimum, issue.inclusive, issue.input);
    case 'too_big':
      return sizeMessage('big', issue.origin, issue.maximum, issue.inclusive, issue.input);
    case 'invalid_format':
      if (issue.format === 'regex' && 'pattern' in issue) {
        return `expected a string matching ${patternSource(issue.pattern)}, got ${describeValue(issue.input)}`;
      }
      return `expected a ${issue.format}, got ${describeValue(issue.input)}`;
    case 'not_multiple_of':
      return `expected a multiple of ${String(issue.divisor)}, got ${describeValue(issue.input)}`;
    case 'invalid_key':
      return 'invalid key';
    case 'invalid_union':
      return `unexpected value ${describeValue(issue.input)}`;
    default:
      return undefined;
  }
};
