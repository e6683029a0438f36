import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { linkSignals } from '../src/api/transport.js';

describe('linkSignals', () => {
  it('aborts when any source aborts, with its reason', () => {
    const a = new AbortController();
    const b = new AbortController();
    const linked = linkSignals([a.signal, undefined, b.signal]);
    expect(linked.signal.aborted).toBe(false);
    b.abort('stop');
    expect(linked.signal.aborted).toBe(true);
    expect(linked.signal.reason).toBe('stop');
  });

  it('starts aborted when a source already is', () => {
    const a = new AbortController();
    a.abort('early');
    expect(linkSignals([a.signal]).signal.reason).toBe('early');
  });

  it('after dispose, a source aborting no longer reaches the linked signal', () => {
    const a = new AbortController();
    const linked = linkSignals([a.signal]);
    linked.dispose();
    a.abort();
    expect(linked.signal.aborted).toBe(false);
  });

  it('after dispose, holds no listener: an abort() then tells no one', () => {
    const linked = linkSignals([new AbortController().signal]);
    const told: unknown[] = [];
    linked.onAbort((reason) => told.push(reason));
    linked.dispose();
    linked.abort('late');
    expect(told).toEqual([]);
  });

  it('hangs one listener on a source however many signals follow it, and aborts them all', () => {
    const interrupt = new AbortController();
    const linked = Array.from({ length: 50 }, () => linkSignals([interrupt.signal, new AbortController().signal]));
    expect(getEventListeners(interrupt.signal, 'abort')).toHaveLength(1);
    linked[0]?.dispose();
    interrupt.abort('stop');
    expect(linked.map((link) => link.signal.aborted)).toEqual([false, ...Array<boolean>(49).fill(true)]);
    expect(linked[1]?.signal.reason).toBe('stop');
  });

  it("abort() aborts the linked signal alone, never its source (an attempt's timeout)", () => {
    const a = new AbortController();
    const linked = linkSignals([a.signal]);
    const other = linkSignals([a.signal]);
    linked.abort();
    expect(linked.signal.aborted).toBe(true);
    expect(a.signal.aborted).toBe(false);
    expect(other.signal.aborted).toBe(false);
  });

  it('abort() works with no source at all', () => {
    const linked = linkSignals([undefined]);
    linked.abort();
    expect(linked.signal.aborted).toBe(true);
  });

  it('follows another link: a call aborted aborts its attempt, with the reason', () => {
    const interrupt = new AbortController();
    const call = linkSignals([interrupt.signal]);
    const attempt = linkSignals([call]);
    const told: unknown[] = [];
    attempt.onAbort((reason) => told.push(reason));
    interrupt.abort('stop');
    expect([call.aborted, attempt.aborted, attempt.reason, told]).toEqual([true, true, 'stop', ['stop']]);
  });

  it('tells onAbort once, and at once when it has aborted already', () => {
    const a = new AbortController();
    const linked = linkSignals([a.signal]);
    const told: unknown[] = [];
    linked.onAbort((reason) => told.push(reason));
    a.abort('first');
    linked.abort();
    linked.onAbort((reason) => told.push(`late ${String(reason)}`));
    expect(told).toEqual(['first', 'late first']);
  });

  it('makes its AbortSignal on first use, aborted or not as the link is', () => {
    const a = new AbortController();
    const linked = linkSignals([a.signal]);
    const { signal } = linked;
    expect(signal.aborted).toBe(false);
    a.abort('now');
    expect([signal.aborted, signal.reason]).toEqual([true, 'now']);
    const timedOut = linkSignals([]);
    timedOut.abort();
    expect(timedOut.signal.reason).toBe(timedOut.reason);
    expect((timedOut.reason as Error).name).toBe('AbortError');
  });
});
