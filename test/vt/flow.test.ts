import { describe, expect, it } from 'vitest';
import { FlowController, pipeToTerminal, type ByteSource } from '../../src/vt/flow.js';
import { PaneTerminal } from '../../src/vt/terminal.js';
import { waitFor } from './helpers.js';

class FakeSource implements ByteSource {
  calls: string[] = [];
  paused = false;
  private listener: ((data: string | Uint8Array) => void) | undefined;
  pause(): void {
    this.calls.push('pause');
    this.paused = true;
  }
  resume(): void {
    this.calls.push('resume');
    this.paused = false;
  }
  onData(listener: (data: string | Uint8Array) => void) {
    this.listener = listener;
    return { dispose: () => (this.listener = undefined) };
  }
  emit(data: string): void {
    this.listener?.(data);
  }
  get listening(): boolean {
    return this.listener !== undefined;
  }
}

describe('FlowController', () => {
  it('pauses above the high watermark and resumes below the low one', () => {
    const source = new FakeSource();
    const flow = new FlowController(source, { highWatermark: 100, lowWatermark: 20 });
    flow.update(50);
    flow.update(100);
    expect(source.calls).toEqual([]);
    flow.update(101);
    flow.update(500);
    expect(source.calls).toEqual(['pause']);
    flow.update(60);
    flow.update(20);
    expect(source.calls).toEqual(['pause']);
    flow.update(19);
    expect(source.calls).toEqual(['pause', 'resume']);
    flow.update(0);
    expect(source.calls).toEqual(['pause', 'resume']);
    expect(flow.paused).toBe(false);
  });

  it('uses 512 KiB / 128 KiB by default', () => {
    const source = new FakeSource();
    const flow = new FlowController(source);
    flow.update(512 * 1024);
    expect(source.paused).toBe(false);
    flow.update(512 * 1024 + 1);
    expect(source.paused).toBe(true);
    flow.update(128 * 1024);
    expect(source.paused).toBe(true);
    flow.update(128 * 1024 - 1);
    expect(source.paused).toBe(false);
  });

  it('dispose resumes a paused source', () => {
    const source = new FakeSource();
    const flow = new FlowController(source, { highWatermark: 10, lowWatermark: 5 });
    flow.update(11);
    flow.dispose();
    expect(source.calls).toEqual(['pause', 'resume']);
    flow.update(100);
    expect(source.calls).toEqual(['pause', 'resume']);
  });
});

describe('pipeToTerminal', () => {
  it('pauses a flooding source and resumes it once the emulator catches up', async () => {
    const source = new FakeSource();
    const term = new PaneTerminal({ cols: 80, rows: 24 });
    let parsedChunks = 0;
    const pipe = pipeToTerminal(source, term, () => parsedChunks++, { highWatermark: 64 * 1024, lowWatermark: 16 * 1024 });
    const chunk = 'y'.repeat(79) + '\r\n';
    let sent = 0;
    while (!source.paused) {
      source.emit(chunk);
      sent++;
      expect(sent).toBeLessThan(10_000);
    }
    expect(term.pendingBytes).toBeGreaterThan(64 * 1024);
    await waitFor(() => !source.paused, 5000, 'resume');
    expect(source.calls).toEqual(['pause', 'resume']);
    expect(term.pendingBytes).toBeLessThan(16 * 1024);
    await waitFor(() => parsedChunks === sent, 5000, 'all chunks parsed');
    expect(term.snapshotText()[0]).toBe('y'.repeat(79));
    pipe.dispose();
    expect(source.listening).toBe(false);
    term.dispose();
  });
});
