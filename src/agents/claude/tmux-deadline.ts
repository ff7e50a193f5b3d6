/**
 * A deadline on every one-shot tmux command of the bridge process (bridge-process.ts,
 * tmux-pane-control.ts). A wedged tmux server (stopped, or stuck behind a client it cannot write to)
 * leaves its clients waiting forever; the bridge must never wait with them. A command that passes its
 * deadline resolves as a failure (`timedOut`, code -1) at the deadline and is logged to teamux.log
 * with its command line; ExecTmuxRunner's own timeout (set to the same deadline) kills the waiting
 * client, and a client it killed is no answer either (it says `timedOut` too). It owns no state beyond the runner it wraps.
 */
import type { Log } from '../../store/log.js';
import type { TmuxResult, TmuxRunner } from '../../host/tmux/runner.js';

/** The default deadline: generous, since a loaded CI machine (load 27) runs a healthy tmux command in seconds. */
export const TMUX_DEADLINE_MS = 20_000;

/** A result that came from the deadline, not from tmux. */
export interface TimedOutResult extends TmuxResult {
  timedOut: true;
}

/** True when `r` is a command that passed its deadline. */
export function timedOut(r: TmuxResult): r is TimedOutResult {
  return (r as Partial<TimedOutResult>).timedOut === true;
}

/** What the deadline's timer resolves with. */
const LATE = Symbol('tmux deadline');

/** `runner` with a deadline of `ms` on each run(); a timeout is logged with the command line. */
export function withDeadline(runner: TmuxRunner, log: Log, ms: number = TMUX_DEADLINE_MS): TmuxRunner {
  return {
    control: (args) => runner.control(args),
    signal: (pid, sig) => runner.signal(pid, sig),
    run(args) {
      const started = Date.now();
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<typeof LATE>((resolve) => {
        timer = setTimeout(() => resolve(LATE), ms);
        timer.unref?.();
      });
      return Promise.race([runner.run(args), late]).then((r) => {
        clearTimeout(timer);
        // The deadline's own timer, or a runner that gave up waiting itself (ExecTmuxRunner kills its
        // client at its timeout, and tmux's client exits 0 on SIGTERM): no answer either way. Told
        // apart by what came, not by the clock.
        if (r !== LATE && !r.timedOut) return r;
        log.warn(`tmux command timed out after ${((Date.now() - started) / 1000).toFixed(1)} s (deadline ${ms / 1000} s; is the tmux server stopped or wedged?): tmux ${args.join(' ')}`);
        const out: TimedOutResult = { stdout: '', stderr: `tmux did not answer within ${ms / 1000} s`, code: -1, timedOut: true };
        return out;
      });
    },
  };
}
