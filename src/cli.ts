// The entry point (bin/rep.js imports the bundle of this file). Signals, stdout and stderr are watched
// first, so nothing that happens later goes unnoticed. `rep --version` is answered here without loading
// the command-line parser; everything else goes through main(), which parses argv, runs the command
// and chooses the exit code.
import { ExitCode } from './errors.js';
import { exitAfterOutput, tolerateStderr, watchInterrupts, watchStdout } from './lifecycle.js';
import { VERSION } from './version.js';

const signal = watchInterrupts();
const stdout = watchStdout();
tolerateStderr();
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${VERSION}\n`);
  process.exitCode = await exitAfterOutput(stdout, ExitCode.ok, false);
} else if (args[0] === '__complete') {
  // Hidden, for the completion scripts: recorded names, without loading the parser or any command.
  const { completeWords } = await import('./commands/complete.js');
  process.stdout.write(completeWords(args.slice(1), process.env));
  process.exitCode = await exitAfterOutput(stdout, ExitCode.ok, false);
} else {
  // The bundle is minified: under --debug, stack traces point into src/ through the source maps.
  if (args.includes('--debug')) process.setSourceMapsEnabled(true);
  const { main } = await import('./main.js');
  process.exitCode = await main(process.argv, { signal, stdout });
}
