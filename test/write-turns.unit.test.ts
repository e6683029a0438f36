// When staged writes go out (src/state/write-turns.ts): at the end of their turn of the event loop by
// default; in a stretched turn, after STRETCHED_ITEMS items or STRETCHED_MS, whichever comes first;
// at once on endWriteTurn. Order only: no test asserts a duration.
import { afterEach, describe, expect, it } from 'vitest';
import { endWriteTurn, STRETCHED_ITEMS, stageWrite, stretchWriteTurns } from '../src/state/write-turns.js';

const nextImmediate = () => new Promise<void>((resolve) => setImmediate(resolve));
const timerAfter = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A group's write and how many times it ran. */
function group() {
  const runs: number[] = [];
  return { runs, write: () => void runs.push(runs.length + 1) };
}

describe('write turns', () => {
  let endStretch: (() => void) | undefined;
  afterEach(() => {
    endStretch?.();
    endStretch = undefined;
    endWriteTurn();
  });

  it('writes what a turn staged once, at its end, not before', async () => {
    const a = group();
    const b = group();
    stageWrite(a.write);
    stageWrite(); // a's second item: no second write
    stageWrite(b.write);
    expect(a.runs).toEqual([]);
    await nextImmediate();
    expect(a.runs).toEqual([1]);
    expect(b.runs).toEqual([1]);
  });

  it('holds a stretched turn past the end of the event loop turn, then writes it', async () => {
    endStretch = stretchWriteTurns();
    const a = group();
    stageWrite(a.write);
    await nextImmediate();
    expect(a.runs).toEqual([]); // held: a batch's next answers join it
    await timerAfter(50); // well past STRETCHED_MS: the timer wrote it
    expect(a.runs).toEqual([1]);
  });

  it('writes a stretched turn at the end of the loop turn once it holds STRETCHED_ITEMS items', async () => {
    endStretch = stretchWriteTurns();
    const a = group();
    stageWrite(a.write);
    for (let item = 2; item < STRETCHED_ITEMS; item++) stageWrite();
    await nextImmediate();
    expect(a.runs).toEqual([]);
    stageWrite();
    expect(a.runs).toEqual([]); // not in the middle of the caller's staging
    await nextImmediate();
    expect(a.runs).toEqual([1]);
  });

  it('writes at once on endWriteTurn, and a group staged after it waits for its own turn', async () => {
    endStretch = stretchWriteTurns();
    const a = group();
    const b = group();
    stageWrite(a.write);
    endWriteTurn();
    expect(a.runs).toEqual([1]);
    stageWrite(b.write);
    await nextImmediate();
    expect(b.runs).toEqual([]);
    endWriteTurn();
    expect(b.runs).toEqual([1]);
    expect(a.runs).toEqual([1]);
  });

  it('ends a stretch with what it held written at the end of the loop turn; nested stretches count', async () => {
    endStretch = stretchWriteTurns();
    const inner = stretchWriteTurns();
    const a = group();
    stageWrite(a.write);
    inner();
    inner(); // a second call of the same end does nothing
    await nextImmediate();
    expect(a.runs).toEqual([]); // the outer stretch still holds it
    endStretch();
    endStretch = undefined;
    expect(a.runs).toEqual([]);
    await nextImmediate();
    expect(a.runs).toEqual([1]);
    const b = group();
    stageWrite(b.write); // unstretched again: the end of this loop turn
    await nextImmediate();
    expect(b.runs).toEqual([1]);
  });

  it('runs every staged write when one of them throws, and the thrower is its own to tell', async () => {
    const a = group();
    stageWrite(() => {
      throw new Error('disk full');
    });
    stageWrite(a.write);
    expect(() => endWriteTurn()).toThrow('disk full');
    expect(a.runs).toEqual([1]);
  });
});
