/**
 * What the multiplexer is started with: the team store, the pane host, the layout, keys and sidebar
 * settings, the members to launch and the terminal streams. A plain description; Multiplexer reads it.
 */
import type { WebSettings } from './web-view.js';
import type { Clock } from '../host/clock.js';
import type { PaneHost, PaneProcess } from '../host/types.js';
import type { KeyTable } from '../keys/keymap.js';
import type { MemberLaunch } from '../mux/state.js';
import type { NativeTeamsOptions } from '../agents/claude/native-teams.js';
import type { SpawnRequest } from '../protocol/spawn.js';
import type { TeamStore } from '../store/team.js';
import type { LayoutName, MainSize, SidebarSize } from '../mux/geometry.js';
import type { SidebarSection } from '../mux/sidebar-data.js';
import type { AttentionOptions } from './attention.js';

/** Everything the multiplexer is started with. */
export interface MuxOptions {
  store: TeamStore;
  host: PaneHost;
  team: string;
  lead: string;
  layout: LayoutName;
  mainSize: MainSize;
  sidebar: SidebarSize & { position: 'left' | 'right'; sections: SidebarSection[] };
  /** Bell, terminal title and notify command when a request starts waiting (default: bell and title). */
  attention?: AttentionOptions;
  keys: KeyTable;
  shutdownTimeoutMs: number;
  members: MemberLaunch[];
  demo: boolean;
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
  /** Run after every member is gone, before the screen closes. */
  onShutdown?: () => Promise<void>;
  /** Lines of scrollback per pane. */
  scrollback?: number;
  /** How long a status-line message stays, in ms (default 6000). */
  messageMs?: number;
  /** Processes already running (tmux attach): members found here are adopted, not started. */
  adopt?: PaneProcess[];
  /** How to launch a teammate asked for by a spawn request (absent: spawn requests are not watched). */
  spawnLaunch?: (req: SpawnRequest) => MemberLaunch | { error: string };
  /** A Claude Code lead whose own agent teams open as panes here (the tmux stand-in). */
  nativeTeams?: NativeTeamsOptions;
  /** The web view's settings; absent or null: off. */
  web?: WebSettings | null;
  /** Where time comes from (default: the system clock); tests drive a fake one. */
  clock?: Clock;
  /** A line for the status line, worked out once the screen is up (`resumed run …`: it reads the board and inboxes). */
  greeting?: () => Promise<string | null>;
  /** Called once start-up is done: every pane started, the team folder read (bin/teamux saves its code cache). */
  onScreenUp?: () => void;
}
