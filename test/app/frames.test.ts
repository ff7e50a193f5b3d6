// FrameScheduler on a FakeClock: requests coalesce into one frame per FRAME_MS, an echo frame is drawn
// in the request itself whatever the previous frame's interval, and it brings a frame already waiting
// forward rather than adding one; output-only frames that follow one another are STREAM_FRAME_MS
// apart, and a change brings them back to FRAME_MS. Time moves only when the test advances it.
// Read pacing: output that names its source holds the source's reads until the frame; an output frame
// releases them and draws a turn later (after what waited was read), an echo draws at once and leaves
// the held sources to a later release, a release that brings nothing draws nothing, stop releases all.
import { afterEach, describe, expect, it } from 'vitest';
import { FRAME_MS, FrameScheduler, STREAM_FRAME_MS } from '../../src/app/frames.js';
import { FakeClock, settle } from '../helpers/clock.js';

const schedulers: FrameScheduler[] = [];
afterEach(() => {
  for (const s of schedulers.splice(0)) s.stop();
});

function scheduler(log?: string[]): { clock: FakeClock; frames: FrameScheduler; drawn: number[] } {
  const clock = new FakeClock();
  const drawn: number[] = [];
  const frames = new FrameScheduler(clock, () => {
    drawn.push(clock.now());
    log?.push('draw');
  }, (err) => {
    throw err;
  });
  schedulers.push(frames);
  return { clock, frames, drawn };
}

/** A source whose reads can be held; on release, `waiting` output (if any) arrives before the event loop's next turn, as a pty's would. */
class Source {
  held = false;
  waiting: string | null = null;
  constructor(private readonly name: string, private readonly log: string[], private readonly frames: () => FrameScheduler) {}
  holdReads(): void {
    this.held = true;
    this.log.push(`hold ${this.name}`);
  }
  releaseReads(): void {
    this.held = false;
    this.log.push(`release ${this.name}`);
    const data = this.waiting;
    this.waiting = null;
    if (data !== null) queueMicrotask(() => this.read(data));
  }
  /** Output read from this source: it asks for a frame as a pane does. */
  read(data: string): void {
    this.log.push(`read ${this.name} ${data}`);
    this.frames().request('output', this);
  }
}

describe('frame pacing', () => {
  it('frames.changes-within-an-interval-coalesce-into-one-frame-16ms-after-the-last', async () => {
    const { clock, frames, drawn } = scheduler();
    const t0 = clock.now();
    frames.request();
    await settle();
    expect(drawn, 'the first frame is due at once').toEqual([t0]);
    frames.request();
    await clock.advance(5);
    frames.request();
    frames.request();
    await clock.advance(FRAME_MS - 6);
    expect(drawn, 'not before the interval has passed').toEqual([t0]);
    await clock.advance(1);
    expect(drawn).toEqual([t0, t0 + FRAME_MS]);
    await clock.advance(100);
    expect(drawn, 'three requests, one frame').toHaveLength(2);
  });

  it('frames.echo-is-drawn-at-once-right-after-a-frame', async () => {
    const { clock, frames, drawn } = scheduler();
    const t0 = clock.now();
    frames.request();
    await settle();
    await clock.advance(2);
    frames.request('echo');
    expect(drawn, 'in the request: not even a turn of the event loop later').toEqual([t0, t0 + 2]);
    await settle();
    expect(drawn, 'and once').toEqual([t0, t0 + 2]);
    expect(clock.pending(), 'no frame left waiting').toEqual([]);
  });

  it('frames.echo-brings-a-waiting-frame-forward-instead-of-adding-one', async () => {
    const { clock, frames, drawn } = scheduler();
    const t0 = clock.now();
    frames.request();
    await settle();
    frames.request();
    expect(clock.pending()).toEqual([FRAME_MS]);
    await clock.advance(3);
    frames.request('echo');
    expect(drawn).toEqual([t0, t0 + 3]);
    await settle();
    expect(drawn).toEqual([t0, t0 + 3]);
    expect(clock.pending(), 'the waiting frame was the echo frame').toEqual([]);
    // Output after the echo is paced from the echo frame.
    frames.request();
    expect(clock.pending()).toEqual([FRAME_MS]);
    await clock.advance(FRAME_MS);
    expect(drawn).toEqual([t0, t0 + 3, t0 + 3 + FRAME_MS]);
  });

  it('frames.streaming-output-frames-are-33ms-apart-and-a-change-brings-the-pace-back-to-16ms', async () => {
    const { clock, frames, drawn } = scheduler();
    const t0 = clock.now();
    frames.request('output');
    await settle();
    expect(drawn, 'output after a quiet spell: at once').toEqual([t0]);
    frames.request('output');
    expect(clock.pending(), 'output after an output-only frame').toEqual([STREAM_FRAME_MS]);
    await clock.advance(STREAM_FRAME_MS);
    frames.request('output');
    await clock.advance(10);
    frames.request('change');
    expect(clock.pending(), 'the change brings the waiting frame forward').toEqual([FRAME_MS - 10]);
    await clock.advance(FRAME_MS - 10);
    const t2 = t0 + STREAM_FRAME_MS + FRAME_MS;
    expect(drawn).toEqual([t0, t0 + STREAM_FRAME_MS, t2]);
    frames.request('output');
    expect(clock.pending(), 'the frame before showed a change: FRAME_MS').toEqual([FRAME_MS]);
    await clock.advance(FRAME_MS);
    frames.request('output');
    expect(clock.pending()).toEqual([STREAM_FRAME_MS]);
    await clock.advance(5);
    frames.request('echo');
    await settle();
    expect(drawn, 'an echo does not wait for the stream').toEqual([t0, t0 + STREAM_FRAME_MS, t2, t2 + FRAME_MS, t2 + FRAME_MS + 5]);
    frames.request('output');
    expect(clock.pending(), 'the echo frame was not output only').toEqual([FRAME_MS]);
    await clock.advance(200);
    frames.request('output');
    await settle();
    expect(drawn.at(-1), 'a quiet spell: at once again').toBe(clock.now());
  });

  it('frames.stop-cancels-the-waiting-frame-and-refuses-new-ones', async () => {
    const { clock, frames, drawn } = scheduler();
    frames.request();
    await settle();
    frames.request();
    frames.stop();
    frames.request('echo');
    await clock.advance(100);
    expect(drawn).toHaveLength(1);
    expect(clock.pending()).toEqual([]);
  });
});

describe('read pacing', () => {
  function paced(): { clock: FakeClock; frames: FrameScheduler; drawn: number[]; log: string[]; a: Source; b: Source } {
    const log: string[] = [];
    const { clock, frames, drawn } = scheduler(log);
    return { clock, frames, drawn, log, a: new Source('a', log, () => frames), b: new Source('b', log, () => frames) };
  }

  it('frames.output-holds-its-source-until-the-frame-which-releases-it-and-draws-once-what-waited-is-read', async () => {
    const { clock, frames, drawn, log, a, b } = paced();
    const t0 = clock.now();
    frames.request();
    await settle();
    log.length = 0;
    a.read('1');
    b.read('1');
    expect(a.held && b.held, 'both wait for the frame').toBe(true);
    expect(clock.pending()).toEqual([FRAME_MS]);
    a.waiting = '2';
    await clock.advance(FRAME_MS);
    expect(log, 'released, then what waited is read, then one frame draws it').toEqual(['read a 1', 'hold a', 'read b 1', 'hold b', 'release a', 'release b', 'read a 2', 'hold a', 'draw']);
    expect(drawn).toEqual([t0, t0 + FRAME_MS]);
    // a was held again by the read after the release: a run at the streaming pace releases it
    expect(a.held).toBe(true);
    expect(clock.pending(), 'the next release is a streaming interval after the frame').toEqual([STREAM_FRAME_MS]);
    log.length = 0;
    await clock.advance(STREAM_FRAME_MS);
    expect(log, 'a release that brings no output draws nothing').toEqual(['release a']);
    expect(drawn).toHaveLength(2);
    expect(clock.pending(), 'nothing held, nothing asked: no timer left').toEqual([]);
  });

  it('frames.streaming-sources-are-read-once-per-frame', async () => {
    const { clock, frames, drawn, log, a } = paced();
    frames.request('output');
    await settle();
    a.read('0');
    log.length = 0;
    // output keeps coming: each frame releases a, reads what waited and holds it again
    for (let i = 1; i <= 5; i++) {
      a.waiting = String(i);
      await clock.advance(STREAM_FRAME_MS);
    }
    expect(log.filter((l) => l.startsWith('read')), 'one read per frame').toEqual(['read a 1', 'read a 2', 'read a 3', 'read a 4', 'read a 5']);
    expect(log.filter((l) => l === 'draw')).toHaveLength(5);
    expect(drawn.slice(1).map((t, i) => t - drawn[i]!), 'at the streaming pace').toEqual([STREAM_FRAME_MS, STREAM_FRAME_MS, STREAM_FRAME_MS, STREAM_FRAME_MS, STREAM_FRAME_MS]);
  });

  it('frames.an-echo-draws-at-once-and-leaves-held-sources-to-the-next-release', async () => {
    const { clock, frames, drawn, log, a } = paced();
    frames.request('output');
    await settle();
    a.read('1');
    a.waiting = '2';
    log.length = 0;
    await clock.advance(3);
    frames.request('echo');
    await settle();
    expect(log, 'the echo does not wait for held output').toEqual(['draw']);
    expect(drawn.at(-1)).toBe(clock.now());
    expect(a.held).toBe(true);
    expect(clock.pending(), 'held output is released a frame after the echo').toEqual([FRAME_MS]);
    await clock.advance(FRAME_MS);
    expect(log).toEqual(['draw', 'release a', 'read a 2', 'hold a', 'draw']);
  });

  it('frames.stop-releases-held-sources-and-holds-no-more', async () => {
    const { frames, a, b } = paced();
    frames.request();
    await settle();
    a.read('1');
    frames.stop();
    expect(a.held, 'a stopped screen must still see its panes exit').toBe(false);
    b.read('1');
    expect(b.held).toBe(false);
  });
});

