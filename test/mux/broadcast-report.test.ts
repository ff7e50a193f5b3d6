// The status line after a broadcast counts the members who will read it now: every inbox gets the
// message, but an exited member's is named as not running instead of counted with the live ones.
import { describe, expect, it } from 'vitest';
import { broadcastReport } from '../../src/mux/commands.js';

describe('broadcastReport', () => {
  it('broadcast.counts-running-members-and-names-the-others', () => {
    const running = new Set(['lead', 'alice']);
    expect(broadcastReport(['lead', 'alice'], (n) => running.has(n))).toBe('broadcast delivered to 2 inboxes');
    expect(broadcastReport(['lead'], (n) => running.has(n))).toBe('broadcast delivered to 1 inbox');
    expect(broadcastReport(['lead', 'alice', 'bob'], (n) => running.has(n))).toBe('broadcast delivered to 2 running members; bob (not running) will find it in its inbox');
    expect(broadcastReport(['lead', 'bob', 'carol'], (n) => n === 'lead')).toBe('broadcast delivered to 1 running member; bob, carol (not running) will find it in their inbox');
  });
});
