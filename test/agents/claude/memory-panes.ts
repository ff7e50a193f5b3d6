// Panes in memory for the tmux stand-in's bridge tests: what the multiplexer would show (side by
// side, 40 columns each, the first focused unless focus() moved it), with the launches it was asked for.
import type { PaneControl, PaneFacts } from '../../../src/agents/claude/mux-pane-control.js';
import type { MemberLaunch } from '../../../src/app/multiplexer.js';

/** A pane handle: its name and the launch it runs. */
export interface MemoryPane { name: string; launch: MemberLaunch }

/** The PaneControl of an in-memory screen. */
export class MemoryPanes implements PaneControl<MemoryPane> {
  readonly panes: MemoryPane[] = [];
  readonly said: string[] = [];
  readonly focused: string[] = [];
  private current = 0;
  all() { return [...this.panes]; }
  facts(h: MemoryPane): PaneFacts | null {
    const i = this.panes.indexOf(h);
    return i < 0 ? null : { name: h.name, rect: { left: i * 40, top: 1, width: 39, height: 20 }, alive: true, pid: h.launch.isLead ? process.pid : 1000 + i, focused: i === this.current };
  }
  area() { return { width: 80, height: 22 }; }
  async open(launch: MemberLaunch) {
    const h = { name: launch.name, launch };
    this.panes.push(h);
    return h;
  }
  async replace(old: MemoryPane, launch: MemberLaunch) {
    const h = { name: launch.name, launch };
    this.panes.splice(this.panes.indexOf(old), 1, h);
    return h;
  }
  async close(h: MemoryPane) { this.panes.splice(this.panes.indexOf(h), 1); }
  focus(h: MemoryPane) {
    this.current = this.panes.indexOf(h);
    this.focused.push(h.name);
  }
  say(t: string) { this.said.push(t); }
}
