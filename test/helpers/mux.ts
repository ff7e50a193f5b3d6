// A Multiplexer on a FakePaneHost and fake terminal streams: keys go in as bytes, the screen comes out
// through a real emulator (PaneTerminal) fed with everything the multiplexer wrote, so tests read the
// status line, titles and sidebar as a person would see them.
import { PassThrough } from 'node:stream';
import { Multiplexer, type MemberLaunch, type MuxOptions } from '../../src/app/multiplexer.js';
import { buildKeyTable } from '../../src/keys/keymap.js';
import { newKeyPair, rootSigner } from '../../src/protocol/trust.js';
import { defaultBindings } from '../../src/mux/actions.js';
import type { TeamStore } from '../../src/store/team.js';
import { PaneTerminal } from '../../src/vt/terminal.js';
import { FakePaneHost } from './fake-host.js';
import { waitFor } from './team.js';

/** A fake terminal: raw-mode tracking on the input, a size on the output. */
export class FakeTty {
  readonly input = Object.assign(new PassThrough(), { isTTY: true, isRaw: false, setRawMode(this: { isRaw: boolean }, on: boolean) { this.isRaw = on; return this; } });
  readonly output = Object.assign(new PassThrough(), { isTTY: true, columns: 120, rows: 36 });
  readonly screen: PaneTerminal;
  raw = '';

  constructor(cols = 120, rows = 36) {
    this.output.columns = cols;
    this.output.rows = rows;
    this.screen = new PaneTerminal({ cols, rows, scrollback: 0 });
    this.output.on('data', (d: Buffer) => {
      const text = d.toString('utf8');
      this.raw += text;
      this.screen.write(text);
    });
  }

  /** The visible rows as text, once everything written so far is parsed. */
  async text(): Promise<string> {
    await this.screen.writeAsync('');
    return this.screen.snapshotText().join('\n');
  }
}

/** A running multiplexer under test. */
export interface MuxHarness {
  mux: Multiplexer;
  host: FakePaneHost;
  tty: FakeTty;
  exit: Promise<number>;
  /** Resolves once start-up is over (the screen's onScreenUp): its last frame asked for, every watch set up. */
  up: Promise<void>;
  /** Type bytes at the outer terminal. */
  type(bytes: string): void;
  /** Press the prefix then a key. */
  prefix(key: string): void;
  /** Wait until the screen shows `what`. */
  see(what: RegExp | string, timeoutMs?: number): Promise<string>;
  /** Quit (forced) and wait for the exit code. */
  stop(): Promise<number>;
}

/** Launch specs for the store's members, each a (fake) command. */
export async function launches(store: TeamStore): Promise<MemberLaunch[]> {
  const cfg = await store.config();
  // They speak the protocol, so shutdown is a handshake (a fake never answers: it ends in SIGTERM).
  return cfg.members.map((m) => ({ name: m.name, role: m.role, isLead: m.kind === 'lead', command: 'fake', args: [], cwd: store.dir, env: {}, speaksProtocol: true }));
}

/** Start a multiplexer over the team with fake panes. */
export async function startMux(store: TeamStore, opts: Partial<MuxOptions> & { cols?: number; rows?: number } = {}): Promise<MuxHarness> {
  const host = (opts.host as FakePaneHost | undefined) ?? new FakePaneHost();
  const tty = new FakeTty(opts.cols, opts.rows);
  const keys = buildKeyTable('C-a', {}, defaultBindings());
  if (!keys.ok) throw new Error(keys.message);
  const cfg = await store.config();
  // The screen signs the operator's plan decisions with its root key, as `teamux start` sets it up.
  store.decisionSigner ??= rootSigner(newKeyPair().privateKey);
  let screenUp!: () => void;
  const up = new Promise<void>((resolve) => (screenUp = resolve));
  const mux = new Multiplexer({
    store, host, team: cfg.name, lead: cfg.members.find((m) => m.kind === 'lead')!.name,
    layout: 'main-vertical', mainSize: { percent: 50 },
    sidebar: { position: 'right', width: { cells: 40 }, minWidth: 24, maxWidth: 48, hideBelow: 0, hidden: false, sections: ['task_board', 'mailbox', 'requests'] },
    keys: keys.table, shutdownTimeoutMs: 2_000, members: await launches(store), demo: false,
    input: tty.input as unknown as NodeJS.ReadStream, output: tty.output as unknown as NodeJS.WriteStream,
    ...opts,
    onScreenUp: () => {
      opts.onScreenUp?.();
      screenUp();
    },
  });
  const exit = mux.run();
  const h: MuxHarness = {
    mux, host, tty, exit, up,
    type: (bytes) => void tty.input.write(bytes),
    prefix: (key) => {
      tty.input.write('\x01');
      tty.input.write(key);
    },
    see: async (what, timeoutMs = 10_000) => {
      let last = '';
      try {
        return await waitFor(async () => {
          last = await tty.text();
          return (typeof what === 'string' ? last.includes(what) : what.test(last)) ? last : null;
        }, `the screen to show ${String(what)}`, timeoutMs);
      } catch (err) {
        throw new Error(`${(err as Error).message}\n--- screen ---\n${last}`);
      }
    },
    stop: async () => {
      await mux.finish(0, true);
      return exit;
    },
  };
  await waitFor(() => mux.panes.length > 0 && mux.panes.every((p) => p.life !== 'starting'), 'the panes to start');
  return h;
}
