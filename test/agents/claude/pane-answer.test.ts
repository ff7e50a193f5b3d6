// The transcript test behind "answered in Claude Code's own dialog": the newest call of the tool with
// this input has a tool_result (allowed and run, or refused in the dialog); an older identical call's
// result, another tool's, or a call still waiting does not count; key order in the input does not matter.
import { describe, expect, it } from 'vitest';
import { answeredInTranscript } from '../../../src/agents/claude/pane-answer.js';

const use = (id: string, name: string, input: unknown) => JSON.stringify({ type: 'assistant', message: { content: [{ type: 'text', text: 'x' }, { type: 'tool_use', id, name, input }] } });
const result = (id: string) => JSON.stringify({ type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }] } });
const input = { command: 'touch a', description: 'Create a' };

describe('answeredInTranscript', () => {
  it('pane-answer.newest-matching-call-with-a-result-counts', () => {
    expect(answeredInTranscript([use('t1', 'Bash', input)].join('\n'), 'Bash', input)).toBe(false);
    expect(answeredInTranscript([use('t1', 'Bash', input), result('t1')].join('\n'), 'Bash', { description: 'Create a', command: 'touch a' })).toBe(true);
    // The same call again, not yet answered: the earlier result is not its answer.
    expect(answeredInTranscript([use('t1', 'Bash', input), result('t1'), use('t2', 'Bash', input)].join('\n'), 'Bash', input)).toBe(false);
    expect(answeredInTranscript([use('t1', 'Bash', input), result('t9')].join('\n'), 'Bash', input)).toBe(false);
    expect(answeredInTranscript([use('t1', 'Write', input), result('t1')].join('\n'), 'Bash', input)).toBe(false);
    expect(answeredInTranscript(['{not json', use('t1', 'Bash', input), '', result('t1')].join('\n'), 'Bash', input)).toBe(true);
  });
});
