// sandbox, cache (with clear), completion, version: rep's own tools, which ask the API nothing.
import { Argument, type Command, Option } from 'commander';
import type { CacheClearOptions } from '../commands/cache.js';
import type { CacheShowOptions } from '../commands/cache-show.js';
import type { CompletionOptions } from '../commands/completion.js';
import type { SandboxCommandOptions } from '../commands/sandbox.js';
import type { VersionOptions } from '../commands/version.js';
import { hostName, parseDuration, portNumber, positiveInteger } from '../options.js';
import { examples, type DefineCommand } from './define.js';
import { globalsOf } from './globals.js';

export const defineSandbox: DefineCommand = (program, runAction) => {
  program
    .command('sandbox')
    .description('run a local server that speaks the same API over a built-in data set')
    .option('-p, --port <n>', 'port to listen on (0: any free port)', portNumber, 0)
    .option('--host <host>', 'address to listen on', hostName, '127.0.0.1')
    .option('--limit <n>', 'requests per key per window', positiveInteger, 100)
    .addOption(new Option('--window <duration>', 'rate-limit window (90, 90s, 15m, 1h)').argParser(parseDuration).default(3_600_000, '1h'))
    .addHelpText('after', examples('rep sandbox --port 8080', 'rep sandbox --limit 5 --window 1m   # try rate limits and --wait quickly'))
    .action((flags: { port: number; host: string; limit: number; window: number }, command: Command) =>
      runAction<SandboxCommandOptions>(
        () => import('../commands/sandbox.js'),
        { port: flags.port, host: flags.host, limit: flags.limit, windowMs: flags.window },
        globalsOf(command),
      ),
    );
};

export const defineCache: DefineCommand = (program, runAction) => {
  const cache = program
    .command('cache')
    .description('what the answer cache holds (place, answers, size); `rep cache clear` empties it')
    .addHelpText('after', examples('rep cache', 'rep cache --json | jq .entries', 'rep cache clear'))
    .action((_flags: object, command: Command) => runAction<CacheShowOptions>(() => import('../commands/cache-show.js'), {}, globalsOf(command)));
  cache
    .command('clear')
    .description('remove every cached answer and say how many went')
    .addHelpText('after', examples('rep cache clear'))
    .action((_flags: object, command: Command) => runAction<CacheClearOptions>(() => import('../commands/cache.js'), {}, globalsOf(command)));
};

export const defineCompletion: DefineCommand = (program, runAction) => {
  program
    .command('completion')
    .description('print a shell completion script')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(['bash', 'zsh', 'fish']))
    .addHelpText('after', examples('source <(rep completion bash)   # in ~/.bashrc; zsh alike', 'rep completion fish > ~/.config/fish/completions/rep.fish'))
    .action((shell: CompletionOptions['shell'], _flags: object, command: Command) =>
      runAction<CompletionOptions>(() => import('../commands/completion.js'), { shell }, globalsOf(command)),
    );
};

export const defineVersion: DefineCommand = (program, runAction) => {
  program
    .command('version')
    .description("print rep's version, Node's version and the platform")
    .addHelpText('after', examples('rep version', 'rep version --json'))
    .action((_flags: object, command: Command) => runAction<VersionOptions>(() => import('../commands/version.js'), {}, globalsOf(command)));
};
