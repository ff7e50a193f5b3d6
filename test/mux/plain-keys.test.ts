// A printable key typed alone skips the tokenizer and the reducer when plainKeyTarget names a pane
// (the screen then writes it straight there: the echo's path). That is only right if the reducer would
// have done exactly that: pass the key to that pane and change nothing. These tests hold the two to the
// same answer for every printable ASCII key, in the states a screen can be in.
import { describe, expect, it } from 'vitest';
import { buildKeyTable, type KeyTable } from '../../src/keys/keymap.js';
import { defaultBindings } from '../../src/mux/actions.js';
import type { Effect, MuxEvent, TermFacts } from '../../src/mux/events.js';
import { plainKeyTarget } from '../../src/mux/input.js';
import { openPrompt } from '../../src/mux/prompt.js';
import { reduce } from '../../src/mux/reduce.js';
import { initialState, type MemberLaunch, type MuxConfig, type MuxState, type PaneState } from '../../src/mux/state.js';

function keyTable(prefix: string): KeyTable {
  const t = buildKeyTable(prefix, {}, defaultBindings());
  if (!t.ok) throw new Error(t.message);
  return t.table;
}

function config(prefix = 'C-a'): MuxConfig {
  return {
    team: 'crew', keys: keyTable(prefix), layout: 'main-vertical', mainSize: { percent: 50 }, hostKind: 'pty', demo: false, messageMs: 6_000,
    sidebar: { position: 'right', width: { cells: 30 }, minWidth: 20, maxWidth: 40, hideBelow: 0, hidden: false, sections: ['requests'] },
  };
}

function launch(name: string, isLead = false): MemberLaunch {
  return { name, role: isLead ? 'lead' : 'dev', isLead, speaksProtocol: true, command: 'x', args: [], cwd: '/', env: {} };
}

/** A 120x36 screen with panes lead, alice, bob running (lead focused). */
function team(prefix = 'C-a'): MuxState {
  let s = initialState(config(prefix), { team: 'crew', roster: [], tasks: [], traffic: [], requests: [], problems: [] }, 120, 36);
  for (const m of [launch('lead', true), launch('alice'), launch('bob')]) [s] = reduce(s, { kind: 'open-pane', launch: m });
  for (const id of ['lead', 'alice', 'bob']) [s] = reduce(s, { kind: 'pane-started', pane: id, error: null });
  return s;
}

function withFocused(s: MuxState, patch: Partial<PaneState>): MuxState {
  return { ...s, panes: s.panes.map((p, i) => (i === s.focused ? { ...p, ...patch } : p)) };
}

const facts: TermFacts = { rows: 20, applicationCursorKeys: false, bracketedPaste: false, mouse: false };
const keyEvent = (raw: string): MuxEvent => ({ kind: 'input', token: { kind: 'key', raw, name: raw === ' ' ? 'space' : raw }, terms: { lead: facts, alice: facts, bob: facts } });
const PRINTABLE = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i));

/** The states a screen can be in when a key arrives, by name. */
function states(): Record<string, MuxState> {
  const s = team();
  return {
    typing: s,
    'another pane focused': { ...s, focused: 2 },
    'zoomed': { ...s, zoomed: 1, focused: 1 },
    'pane still starting': withFocused(s, { life: 'starting' }),
    'pane exited': withFocused(s, { life: 'exited', exitText: 'exited 0' }),
    'scroll mode': withFocused(s, { scrollMode: true }),
    'prefix pending': { ...s, mode: 'prefix' },
    'help open': { ...s, help: true },
    'reader open': { ...s, reader: { id: 'r1', top: 0 } },
    'prompt open': { ...s, prompt: { edit: openPrompt('broadcast: '), purpose: { kind: 'broadcast' } } },
    'reader and prompt open': { ...s, reader: { id: 'r1', top: 0 }, prompt: { edit: openPrompt('broadcast: '), purpose: { kind: 'broadcast' } } },
    'quitting': { ...s, quitting: 'graceful' },
    finished: { ...s, finished: true },
    'no panes': { ...s, panes: [] },
    'a printable prefix (`)': team('`'),
  };
}

const passesThrough = (s: MuxState, next: MuxState, fx: readonly Effect[], pane: string, raw: string): boolean =>
  next === s && fx.length === 1 && fx[0]!.kind === 'type' && fx[0]!.pane === pane && fx[0]!.raw === raw;

describe('plain keys', () => {
  it('plain-keys.a-pane-is-named-exactly-when-the-reducer-would-only-pass-the-key-to-it', () => {
    const taken: Array<[string, string]> = [];
    for (const [name, s] of Object.entries(states())) {
      for (const raw of PRINTABLE) {
        const target = plainKeyTarget(s, raw);
        const [next, fx] = reduce(s, keyEvent(raw));
        const focused = s.panes[s.focused]?.id ?? '';
        if (target !== null) {
          expect(target, `${name}: the focused pane`).toBe(focused);
          expect(passesThrough(s, next, fx, target, raw), `${name}: ${JSON.stringify(raw)} is only passed to ${target} by the reducer too (got ${JSON.stringify(fx)})`).toBe(true);
          taken.push([name, raw]);
        } else {
          expect(passesThrough(s, next, fx, focused, raw), `${name}: ${JSON.stringify(raw)} takes the whole route, so the reducer must do more than pass it through`).toBe(false);
        }
      }
    }
    // the states where typing goes to a pane take every printable key but a printable prefix
    const takenIn = new Set(taken.map(([name]) => name));
    expect([...takenIn].sort()).toEqual(['a printable prefix (`)', 'another pane focused', 'pane still starting', 'quitting', 'typing', 'zoomed']);
    expect(taken.filter(([name]) => name === 'typing').length).toBe(PRINTABLE.length);
    expect(taken.filter(([name]) => name === 'a printable prefix (`)').map(([, raw]) => raw)).toEqual(PRINTABLE.filter((k) => k !== '`'));
  });
});
