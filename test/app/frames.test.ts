// FrameScheduler on a FakeClock: requests coalesce into one frame per FRAME_MS, an echo frame is drawn
// on the next turn whatever the previous frame's interval, and it brings a frame already waiting
// forward rather than adding one. Time moves only when the test advances it.
import { afterEach, describe, expect, it } from 'vitest';
import { FRAME_MS, FrameScheduler } from '../../src/app/frames.js';
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
