// The entry point (bin/rep.cjs requires the bundle of this file, dist/cli.cjs), and the only module that touches the
// process: it watches signals and the output streams from its first line, so nothing that happens
// later goes unnoticed, hands main() the process's IO, environment and an abort (a link), and sets the
// exit code main() chose. `rep --version` is answered here without loading the command-line parser.
import { linkSignals } from './api/abort-link.js';
import { ExitCode, InterruptedError } from './errors.js';
import { directOutput, exitAfterOutput, streamIO } from './io.js';
import { VERSION } from './version.js';

/**
 * Aborted on the first Ctrl-C, SIGTERM, SIGHUP or SIGQUIT (so a signal during start-up still ends in
 * exit 130). A second one exits at once, after `exiting`'s listeners have closed the output. Links, not
 * AbortControllers: an AbortSignal is made only for who needs one (a run answered from the cache asks
 * only `aborted`, and Node's AbortController costs a run its own compile).
 */
const interrupt = linkSignals([]);
const exiting = linkSignals([]);
const onSignal = () => {
  if (interrupt.aborted) {
    exiting.abort(); // its listeners are synchronous: they finish before the exit
    process.exit(ExitCode.interrupted);
  }
  interrupt.abort(new InterruptedError());
};
for (const name of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'] as const) process.on(name, onSignal);

// Node's streams for stdout and stderr are made only for a terminal; a file or a pipe is written directly.
const stdout = () => process.stdout;
const stderr = () => process.stderr;
const io = streamIO(
  { stdin: () => process.stdin, stdout: directOutput(1, stdout) ?? stdout(), stderr: directOutput(2, stderr) ?? stderr(), stderrStream: stderr },
  process.env,
);
void run(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});

async function run(args: string[]): Promise<number> {
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
    io.out(`${VERSION}\n`);
    return exitAfterOutput(io, ExitCode.ok, false);
  }
  if (args[0] === '__complete') {
    // Hidden, for the completion scripts: recorded names, without loading the parser or any command.
    const { completeWords } = await import('./commands/complete.js');
    io.out(await completeWords(args.slice(1), process.env));
    return exitAfterOutput(io, ExitCode.ok, false);
  }
  const { main } = await import('./main.js');
  return main(process.argv, { io, env: process.env, signal: interrupt, exiting, longRun });
}

/**
 * A batch makes garbage at a steady rate for minutes, and V8 lets its old generation grow to up to
 * four times what is live before a full collection, so peak memory grew with the number of names
 * (docs/performance.md, issue 31). A fixed, smaller growth keeps it near what is live.
 */
function longRun(): void {
  const v8 = process.getBuiltinModule('node:v8');
  // bin/rep.cjs then compiles the files of dist/lib/ it has not run yet without its code cache: V8
  // reads an entry only under the flags it was made under.
  (globalThis as Record<symbol, unknown>)[Symbol.for('rep.v8FlagsTuned')] = true;
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  // Node 20's V8 (11.x) has no Maglev: a batch's per-name code runs in the interpreter and the
  // baseline tier until TurboFan takes it, later than on 22+ (its first 3,000 names cost ~1.0 s,
  // Node 26's ~0.6). A smaller budget tiers up sooner. Later V8s have no such flag.
  const tiersLate = process.versions.v8.startsWith('11.');
  if (tiersLate) v8.setFlagsFromString(`--interrupt-budget=${INTERRUPT_BUDGET}`);
  const young = capYoungGeneration(v8);
  // Back to V8's default before anything else runs at exit: bin/rep.cjs writes its code cache then,
  // and V8 stamps an entry with its flags (an entry made under this one would be refused by every
  // later run, and written again by each).
  process.prependListener('exit', () => {
    young.stop();
    v8.setFlagsFromString('--heap-growing-percent=0');
    v8.setFlagsFromString(`--semi-space-growth-factor=${SEMI_SPACE_GROWTH_FACTOR}`);
    if (tiersLate) v8.setFlagsFromString(`--interrupt-budget=${V8_11_INTERRUPT_BUDGET}`);
  });
}

/**
 * V8 doubles the young generation whenever as much as it holds has survived since it last grew, so
 * under a batch's steady garbage it always reaches its maximum (2 x 16 MB on Node 20), twice what a
 * short run ends with. Its maximum is fixed when the process starts, but its growth factor is read at
 * each growth: once a semi-space holds SEMI_SPACE_CAP_BYTES, it grows no further.
 */
function capYoungGeneration(v8: typeof import('node:v8')): { stop(): void } {
  const capped = () => {
    const young = v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
    // A semi-space's capacity is what is used and available in it (V8 12+ commits pages lazily, so
    // the space's size says less); a little less than the cap counts, for the pages' own headers.
    if (!young || young.space_used_size + young.space_available_size < SEMI_SPACE_CAP_BYTES * 0.75) return false;
    v8.setFlagsFromString('--semi-space-growth-factor=1');
    return true;
  };
  if (capped()) return { stop() {} };
  const { PerformanceObserver } = process.getBuiltinModule('node:perf_hooks');
  const observer = new PerformanceObserver(() => {
    if (capped()) observer.disconnect();
  });
  observer.observe({ entryTypes: ['gc'] });
  return { stop: () => observer.disconnect() };
}

/**
 * The semi-space's capacity at which a long run stops the young generation's growth. 4 MB (two
 * semi-spaces: 8 MB): with 8, a batch of 100,000 names peaked at 95-97 MB against a 1,000-name
 * batch's 74-76 on Node 20 (1.3x, the bound); with 4, 89 MB, for ~4-7% more CPU in collections (a
 * batch's answers survive few of them; docs/performance.md).
 */
const SEMI_SPACE_CAP_BYTES = 4 * 1024 * 1024;
/** V8's own growth factor of the young generation, set back at exit. */
const SEMI_SPACE_GROWTH_FACTOR = 2;

/** A long run's interrupt budget on Node 20 (tiering up sooner), and V8 11's own, set back at exit. */
const INTERRUPT_BUDGET = 30_000;
const V8_11_INTERRUPT_BUDGET = 67_584;

/** How far V8 lets the old generation grow past what was live after a full collection, in percent. */
const HEAP_GROWING_PERCENT = 30;
