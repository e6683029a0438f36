import { describe, expect, it } from 'vitest';
import { linkSignals } from '../src/api/signals.js';

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
});
