// FrameScheduler on a FakeClock: requests coalesce into one frame per FRAME_MS, an echo frame is drawn
// on the next turn whatever the previous frame's interval, and it brings a frame already waiting
// forward rather than adding one; output-only frames that follow one another are STREAM_FRAME_MS
// apart, and a change brings them back to FRAME_MS. Time moves only when the test advances it.
import { afterEach, describe, expect, it } from 'vitest';
import { FRAME_MS, FrameScheduler, STREAM_FRAME_MS } from '../../src/app/frames.js';
import { FakeClock, settle } from '../helpers/clock.js';

const schedulers: FrameScheduler[] = [];
afterEach(() => {
  for (const s of schedulers.splice(0)) s.stop();
});

function scheduler(): { clock: FakeClock; frames: FrameScheduler; drawn: number[] } {
  const clock = new FakeClock();
  const drawn: number[] = [];
  const frames = new FrameScheduler(clock, () => drawn.push(clock.now()), (err) => {
    throw err;
  });
  schedulers.push(frames);
  return { clock, frames, drawn };
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
    await settle();
    expect(drawn, 'without waiting out the interval').toEqual([t0, t0 + 2]);
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
