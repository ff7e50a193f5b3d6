/**
 * Script files: YAML is validated by one schema and a bad file yields `file:line:col path: message`
 * errors (never a stack trace); a folder loads as one script per member; runDemoServer serves a
 * folder, and reports bad scripts and a busy port as values.
 */
import { describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { formatScriptError, loadScriptDir, parseScript, scriptFromObject } from '../../src/demo/script.js';
import { startScriptedServer } from '../../src/demo/server.js';
import { runDemoServer } from '../../src/demo/main.js';
import { ask, clientFor, textOf } from './helpers.js';

const fixtures = fileURLToPath(new URL('../fixtures/demo/', import.meta.url));

async function errorsOf(dir: string): Promise<string[]> {
  const file = join(fixtures, dir, 'lead.yaml');
  const result = parseScript(await readFile(file, 'utf8'), 'lead.yaml');
  if (result.ok) throw new Error('expected the script to be rejected');
  return result.errors.map(formatScriptError);
}

describe('validation', () => {
  it('validation.schema-errors-carry-file-line-column-and-path', async () => {
    expect(await errorsOf('bad')).toEqual([
      'lead.yaml:5:11 steps[0].reply[1].tool_use.name: expected string, received number',
      'lead.yaml:7:5 steps[1].reply: Too small: expected array to have >=1 items',
      'lead.yaml:8:27 steps[2].error: Unrecognized key: "tims"',
      'lead.yaml:9:13 steps[3].when.last_user_contains: invalid regex /([a-z/: Invalid regular expression: /([a-z/: Unterminated character class',
      'lead.yaml:12:5 steps[4]: a step has exactly one of `reply` or `error`',
    ]);
  });

  it('validation.yaml-syntax-errors-carry-file-line-column', async () => {
    const errors = await errorsOf('syntax');
    expect(errors[0]).toMatch(/^lead\.yaml:3:\d+ Missing closing "quote$/);
    expect(errors.every((e) => /^lead\.yaml:\d+:\d+ /.test(e))).toBe(true);
  });

  it('validation.reply-block-needs-exactly-one-kind', () => {
    const result = parseScript('steps:\n  - reply:\n      - { text: hi, tool_use: { name: x } }\n', 'a.yaml');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map(formatScriptError)).toEqual([
      'a.yaml:3:9 steps[0].reply[0]: a reply block has exactly one of `text` or `tool_use`',
    ]);
  });

  it('validation.missing-steps-and-empty-file', () => {
    const result = parseScript('', 'empty.yaml');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.map(formatScriptError)[0]).toMatch(/^empty\.yaml(:\d+:\d+)? steps: /);
  });

  it('validation.defaults-are-filled-in', () => {
    const result = parseScript(
      'steps:\n  - reply: [ { text: hi } ]\n  - reply: [ { tool_use: { name: t } } ]\n  - error: { status: 529 }\n',
      'ok.yaml',
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.idle_reply).toBe('(waiting)');
    expect(result.value.steps).toEqual([
      { kind: 'turn', when: undefined, reply: [{ type: 'text', text: 'hi' }], stopReason: 'end_turn' },
      { kind: 'turn', when: undefined, reply: [{ type: 'tool_use', name: 't', input: {} }], stopReason: 'tool_use' },
      {
        kind: 'error',
        when: undefined,
        status: 529,
        errorType: 'overloaded_error',
        message: 'Overloaded',
        times: 1,
        retryAfter: undefined,
        midStream: false,
      },
    ]);
  });

  it('validation.inline-scripts-report-paths', () => {
    const result = scriptFromObject({ steps: [{ reply: [{ text: 'x' }], stop_reason: 'later' }] }, 'lead');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(formatScriptError(result.errors[0]!)).toMatch(/^lead steps\[0\]\.stop_reason: /);
  });

  it('validation.invalid-inline-script-makes-start-throw', async () => {
    await expect(startScriptedServer({ scripts: { lead: { steps: [{ reply: [] }] } } })).rejects.toThrow(
      /lead steps\[0\]\.reply: Too small/,
    );
  });
});

describe('script folders', () => {
  it('folder.loads-one-script-per-member', async () => {
    const result = await loadScriptDir(join(fixtures, 'team'));
    expect(result.ok).toBe(true);
    if (result.ok) expect([...result.value.keys()]).toEqual(['alice', 'lead']);
  });

  it('folder.missing-or-empty-is-an-error-value', async () => {
    const missing = await loadScriptDir(join(fixtures, 'nope'));
    expect(missing.ok).toBe(false);
    if (!missing.ok) expect(formatScriptError(missing.errors[0]!)).toContain('cannot read script folder: ENOENT');
  });

  it('run-demo-server.plays-a-team-from-a-folder', async () => {
    const result = await runDemoServer(join(fixtures, 'team'));
    if (!result.ok) throw new Error(result.errors.join('\n'));
    const { server } = result;
    try {
      const lead = clientFor(server, { member: 'lead' });
      const alice = clientFor(server, { member: 'alice' });
      const plan = await lead.messages.stream(ask('Build the app')).finalMessage();
      expect(plan.content[1]).toMatchObject({ type: 'tool_use', name: 'create_task', input: { subject: 'Design', blockedBy: [] } });

      expect(textOf(await alice.messages.create(ask('hello')))).toBe('(alice is waiting for an assignment)');
      const claim = await alice.messages.stream(ask('{"type":"task_assignment"}')).finalMessage();
      expect(claim.content[1]).toMatchObject({ type: 'tool_use', name: 'claim_task', input: { id: '1' } });
      // alice's next step is a 529 the SDK retries through
      expect(textOf(await alice.messages.stream(ask('claimed')).finalMessage())).toBe('Design done.');

      expect(textOf(await lead.messages.create(ask('alice: Report — design DONE')))).toBe('Thanks, the team is finished.');
      expect(textOf(await lead.messages.create(ask('anything else?')))).toBe('(script finished)');
      const aliceStatuses = server.requests.filter((r) => r.member === 'alice').map((r) => r.status);
      expect(aliceStatuses).toEqual([200, 200, 529, 200]);
    } finally {
      await server.close();
    }
  });

  it('run-demo-server.reports-bad-scripts-as-file-line-errors', async () => {
    const result = await runDemoServer(join(fixtures, 'bad'));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toHaveLength(5);
    expect(result.errors[0]).toBe(`${join(fixtures, 'bad', 'lead.yaml')}:5:11 steps[0].reply[1].tool_use.name: expected string, received number`);
  });

  it('run-demo-server.reports-a-busy-port', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const result = await runDemoServer(join(fixtures, 'team'), port);
      expect(result).toEqual({ ok: false, errors: [`demo server: cannot listen on 127.0.0.1:${port} (EADDRINUSE)`] });
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});
