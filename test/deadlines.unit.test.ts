// The attempts' timeouts on one timer (src/api/deadlines.ts), on fake timers (Date.now is the clock):
// each attempt's link aborts once its own timeout has passed (at most a tenth of it later), never
// another's, and no timer is left while nothing is under way.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { linkSignals } from '../src/api/abort-link.js';
import { Deadlines } from '../src/api/deadlines.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('Deadlines', () => {
  it('aborts a lone attempt at its timeout, and leaves no timer once it ends', () => {
    const deadlines = new Deadlines(1000, Date.now);
    const link = linkSignals([]);
    const deadline = deadlines.start(link);
    vi.advanceTimersByTime(999);
    expect([link.aborted, deadline.timedOut]).toEqual([false, false]);
    vi.advanceTimersByTime(1);
    expect([link.aborted, deadline.timedOut]).toEqual([true, true]);
    deadlines.end(deadline);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('never aborts before the timeout when it is no multiple of ten milliseconds', () => {
    const deadlines = new Deadlines(1234, Date.now);
    const link = linkSignals([]);
    deadlines.start(link);
    vi.advanceTimersByTime(1233);
    expect(link.aborted).toBe(false);
    vi.advanceTimersByTime(7);
    expect(link.aborted).toBe(true);
  });

  it('a timeout of a few milliseconds is kept as it is, not rounded up to whole ticks', () => {
    const deadlines = new Deadlines(7, Date.now);
    const link = linkSignals([]);
    deadlines.start(link);
    vi.advanceTimersByTime(6);
    expect(link.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(link.aborted).toBe(true);
  });

  it('a timer held up (a busy event loop) aborts at its late firing every attempt due by then', () => {
    const deadlines = new Deadlines(1000, Date.now);
    const first = linkSignals([]);
    deadlines.start(first);
    vi.advanceTimersByTime(500);
    const second = linkSignals([]);
    deadlines.start(second);
    // The clock passes both attempts' times before the timer gets to fire.
    vi.setSystemTime(Date.now() + 3000);
    vi.advanceTimersToNextTimer();
    expect([first.aborted, second.aborted]).toEqual([true, true]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('aborts each attempt after its own timeout, at most a tenth of it late, never one still in time', () => {
    const deadlines = new Deadlines(1000, Date.now);
    const first = linkSignals([]);
    const firstDeadline = deadlines.start(first);
    vi.advanceTimersByTime(50);
    const second = linkSignals([]);
    const secondDeadline = deadlines.start(second);
    vi.advanceTimersByTime(950);
    expect([first.aborted, second.aborted]).toEqual([true, false]);
    vi.advanceTimersByTime(49);
    expect(second.aborted).toBe(false);
    vi.advanceTimersByTime(51); // 1,050 ms after it started: within a tick of its timeout
    expect([second.aborted, secondDeadline.timedOut]).toEqual([true, true]);
    deadlines.end(firstDeadline);
    deadlines.end(secondDeadline);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('an attempt that ended in time is not aborted, and the timer goes on for those still under way', () => {
    const deadlines = new Deadlines(1000, Date.now);
    const done = linkSignals([]);
    const doneDeadline = deadlines.start(done);
    const going = linkSignals([]);
    const goingDeadline = deadlines.start(going);
    vi.advanceTimersByTime(500);
    deadlines.end(doneDeadline);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(600);
    expect([done.aborted, doneDeadline.timedOut, going.aborted, goingDeadline.timedOut]).toEqual([false, false, true, true]);
  });

  it('starts its ticks again with the next attempt once none was under way', () => {
    const deadlines = new Deadlines(1000, Date.now);
    deadlines.end(deadlines.start(linkSignals([])));
    vi.advanceTimersByTime(5000);
    const link = linkSignals([]);
    const deadline = deadlines.start(link);
    vi.advanceTimersByTime(999);
    expect(link.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(deadline.timedOut).toBe(true);
  });
});
