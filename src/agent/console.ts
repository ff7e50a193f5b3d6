/**
 * PaneConsole: the person at the pane, wired to a runtime. Raw input bytes are decoded into keys,
 * the line being typed is shown on the pane's input line, Enter queues it as steering, Esc
 * interrupts the model, Ctrl-C interrupts and a second Ctrl-C within two seconds exits. It owns
 * only the line being typed and the time of the last Ctrl-C.
 */
import type { Disposable } from '../host/types.js';
import { ctrlC, decodeKeys, editLine } from './keys.js';
import type { Pane } from './pane.js';

/** What the console drives (AgentRuntime implements it). */
export interface Steerable {
  steer(text: string): void;
  interrupt(): boolean;
  exit(code: number, reason: string): void;
}

/** Exit code after a double Ctrl-C (as for SIGINT). */
export const EXIT_CTRL_C = 130;

/** The pane's keyboard. */
export class PaneConsole implements Disposable {
  // what drives and shows
  private readonly target: Steerable;
  private readonly pane: Pane;
  private readonly now: () => number;
  // typing state
  private line = '';
  private lastCtrlC: number | null = null;

  constructor(target: Steerable, pane: Pane, now: () => number = Date.now) {
    this.target = target;
    this.pane = pane;
    this.now = now;
  }

  /** Feed raw input (a chunk from stdin). */
  feed(chunk: string): void {
    for (const key of decodeKeys(chunk)) {
      const action = editLine(this.line, key);
      switch (action.kind) {
        case 'edit':
          this.line = action.line;
          break;
        case 'submit':
          this.line = '';
          this.target.steer(action.text);
          break;
        case 'interrupt':
          this.line = action.line;
          if (this.target.interrupt()) this.pane.line('Esc: interrupting the current turn', 'yellow');
          break;
        case 'ctrl-c': {
          this.line = action.line;
          const now = this.now();
          if (ctrlC(this.lastCtrlC, now) === 'exit') {
            this.target.exit(EXIT_CTRL_C, 'Ctrl-C twice');
          } else {
            this.target.interrupt();
            this.pane.line('Ctrl-C: interrupted (press Ctrl-C again within 2s to exit)', 'yellow');
          }
          this.lastCtrlC = now;
          break;
        }
      }
    }
    this.pane.input(this.line);
  }

  /** Nothing to release beyond the typed line. */
  dispose(): void {
    this.line = '';
  }
}
