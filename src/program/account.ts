// login, logout, status: the key and where it comes from.
import type { Command } from 'commander';
import type { LoginOptions } from '../commands/login.js';
import type { LogoutOptions } from '../commands/logout.js';
import type { StatusOptions } from '../commands/status.js';
import { examples, type DefineCommand } from './define.js';
import { globalsOf } from './globals.js';

export const defineLogin: DefineCommand = (program, runAction) => {
  program
    .command('login')
    .description('store an API key (read from a hidden prompt, or the first line of stdin) and base URL')
    .option('--no-verify', 'store the key without checking it with one pulse call')
    .addHelpText(
      'after',
      examples(
        'rep login --base-url https://reputation.example.com/api',
        `printf '%s\\n' "$KEY" | rep login --base-url https://reputation.example.com/api`,
        'rep login --no-verify',
      ),
    )
    .action((flags: { verify: boolean }, command: Command) =>
      runAction<LoginOptions>(() => import('../commands/login.js'), { verify: flags.verify }, globalsOf(command)),
    );
};

export const defineLogout: DefineCommand = (program, runAction) => {
  program
    .command('logout')
    .description('remove the stored API key (other settings stay)')
    .addHelpText('after', examples('rep logout', 'rep logout && rep status'))
    .action((_flags: object, command: Command) => runAction<LogoutOptions>(() => import('../commands/logout.js'), {}, globalsOf(command)));
};

export const defineStatus: DefineCommand = (program, runAction) => {
  program
    .command('status')
    .description('show base URL, key source, masked key, config path and recent request count')
    .addHelpText('after', examples('rep status', 'rep status --json | jq -r .key_source', 'rep --sandbox status'))
    .action((_flags: object, command: Command) => runAction<StatusOptions>(() => import('../commands/status.js'), {}, globalsOf(command)));
};
