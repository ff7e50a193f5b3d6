/**
 * The shipped files under layouts/: every example is valid (no errors, no warnings) and points
 * editors at the schema, and the checked-in schema.json is exactly what the zod schema generates.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { renderLayoutJsonSchema } from '../../src/config/json-schema.js';
import { formatErrors, loadLayout } from '../../src/config/load.js';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const layoutsDir = path.join(repo, 'layouts');
const examples = fs.readdirSync(layoutsDir).filter((f) => f.endsWith('.yaml') || f.endsWith('.yml'));

describe('example layouts', () => {
  test('there are examples to check', () => {
    expect(examples.length).toBeGreaterThanOrEqual(2);
  });

  test.each(examples)('%s is valid and declares its schema', (name) => {
    const file = path.join(layoutsDir, name);
    const text = fs.readFileSync(file, 'utf8');
    expect(text.split('\n')[0]).toBe('# yaml-language-server: $schema=./schema.json');
    const result = loadLayout(file);
    if (!result.ok) throw new Error(formatErrors(result.errors));
    expect(result.warnings).toEqual([]);
  });
});

describe('layouts/schema.json', () => {
  test('matches the zod schema', () => {
    const checkedIn = fs.readFileSync(path.join(layoutsDir, 'schema.json'), 'utf8');
    expect(checkedIn).toBe(renderLayoutJsonSchema());
  });

  test('says what the refinements cannot: exactly one of command or agent (or remote: true)', () => {
    const schema = JSON.parse(renderLayoutJsonSchema()) as { $defs: { Member: { oneOf: unknown } } };
    expect(schema.$defs.Member.oneOf).toEqual([{ required: ['command'] }, { required: ['agent'] }, { required: ['remote'], properties: { remote: { const: true } } }]);
  });

  test('the generator script runs with plain node against dist/', () => {
    // dist/ is built by the vitest global setup.
    const out = execFileSync(process.execPath, [path.join(repo, 'scripts', 'gen-schema.mjs'), '--check'], { encoding: 'utf8' });
    expect(out).toContain('up to date');
  });
});
