/**
 * The tmux backend of the PaneHost seam: members in real tmux panes that outlive the TUI. This file
 * only re-exports what other layers use; it owns nothing.
 */
export { TmuxHost, type TmuxHostOptions } from './host.js';
export type { TmuxPane } from './pane.js';
export { ExecTmuxRunner, type ControlProcess, type TmuxResult, type TmuxRunner } from './runner.js';
export { FakeTmuxRunner, FakeControlProcess } from './fake-runner.js';
