// When the writes a call stages go out. The history's appends and the answer journal's records are
// gathered and written together, a file a group, not a write an answer: by default at the end of the
// turn of the event loop they were staged in (setImmediate), so a single call waits for nothing.
//
// A batch stretches the turn (stretchWriteTurns): at concurrency 4 against a fast server a turn of the
// event loop carries 1-4 answers, and each turn's writes cost the same calls, checks and promises
// whatever they carry (issue 31: the history and the cache were 1.5 s of a 10,000-name run's 3.4 s, a
// third of that at concurrency 16). Stretched, what is staged goes out once STRETCHED_ITEMS are
// staged or STRETCHED_MS have passed since the first, whichever comes first. Nothing is lost by the
// wait: a batch prints an answer only once its point and its cache record are written, and the
// requests go on meanwhile (the ledger's lines are not staged here: a request waits for its own).
// A journal has 64 shards, and a group's answers each go to one: a group of ~64 answers writes to ~40
// of them, ~0.6 writes an answer a journal; one of ~160, ~0.37 (a 10,000-name run: ~8,500 writes to
// each journal, then ~5,000). An answer waits for two or three turns in a row (its cache record, its
// previous point where the change is shown, its new point); the batch's window of names read ahead
// (512) holds that many groups, and it may have ~160 requests ahead of its output (batch/run.ts's
// MAX_MORE_AHEAD), so the wait does not hold the requests up. The wait is not felt: 32 ms, and a
// batch that can only wait for its writes has them made at once.

/** Items a stretched turn holds before its writes go out, counted as the callers stage them (about two an answer). */
export const STRETCHED_ITEMS = 320;
/** The longest a stretched turn holds its writes. */
export const STRETCHED_MS = 32;

let stretches = 0;
let staged: Array<() => void> = [];
let items = 0;
let timer: ReturnType<typeof setTimeout> | undefined;
let soon: ReturnType<typeof setImmediate> | undefined;

/**
 * Stages one item of a group whose write is `write`: the caller passes `write` with the first item of
 * its group in this turn (undefined with the others), and it runs once, when the turn ends.
 */
export function stageWrite(write?: () => void): void {
  if (write) staged.push(write);
  items += 1;
  // Stryker disable next-line ConditionalExpression: only speed: a second immediate or timer finds the writes gone (endWriteTurn clears both)
  if (soon) return;
  if (stretches === 0 || items >= STRETCHED_ITEMS) {
    clearTimeout(timer);
    timer = undefined;
    soon = setImmediate(endWriteTurn);
  } else timer ??= setTimeout(endWriteTurn, STRETCHED_MS);
}

/**
 * Runs the staged writes now. Each caller settles its own and catches its own failures; one that throws
 * anyway (a bug) does not keep the others from running, and is thrown once they have.
 */
export function endWriteTurn(): void {
  clearImmediate(soon);
  clearTimeout(timer);
  soon = timer = undefined;
  items = 0;
  const writes = staged;
  staged = [];
  let failure: { error: unknown } | undefined;
  for (const write of writes) {
    try {
      write();
    } catch (error) {
      failure ??= { error };
    }
  }
  if (failure) throw failure.error;
}

/**
 * Turns are stretched until the returned function is called (a batch, for its run); nested stretches
 * count. Ending the last one writes what is staged at the end of this turn, as an unstretched turn would.
 */
export function stretchWriteTurns(): () => void {
  stretches += 1;
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    stretches -= 1;
    if (stretches === 0 && timer) {
      clearTimeout(timer);
      timer = undefined;
      soon = setImmediate(endWriteTurn);
    }
  };
}
