// An interactive bash, zsh or fish on a terminal (tmux, on a socket of its own), for what only a real
// shell shows: what Tab inserts on the command line. Skipped where tmux is missing (under CI=true, a failure).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

export const hasTmux = process.platform !== 'win32' && spawnSync('tmux', ['-V']).status === 0;
// Under CI a missing tmux fails the run (.ci/run installs it) rather than skipping the tests that need it.
if (!hasTmux && process.env.CI === 'true') throw new Error('tmux is not installed: .ci/run installs it for the completion tests');

export type Shell = 'bash' | 'zsh' | 'fish';

const START: Record<Shell, string[]> = {
  bash: ['bash', '--norc', '--noprofile', '-i'],
  zsh: ['zsh', '-f', '-i'],
  fish: ['fish', '--no-config', '-i'],
};

/** Loads the completion script and sets a bare `> ` prompt; each line ends by printing READY. */
const SETUP: Record<Shell, (script: string) => string> = {
  bash: (script) => `source '${script}'; PS1='> '; echo RE''ADY`,
  zsh: (script) => `autoload -Uz compinit && compinit -u -D && source '${script}'; PROMPT='> '; echo RE''ADY`,
  fish: (script) => `source '${script}'; function fish_prompt; echo -n '> '; end; set -g fish_autosuggestion_enabled 0; echo RE''ADY`,
};

export interface ShellSession {
  /** Clears the line, types `line`, presses Tab (`tabs` times), and returns the screen once `until` holds for it. */
  complete(line: string, until: (screen: string) => boolean, tabs?: number): Promise<string>;
  close(): void;
}

/** Starts `shell` in `dir` with `env`, its completion for rep loaded from `script`. */
export async function startShell(shell: Shell, script: string, dir: string, env: NodeJS.ProcessEnv): Promise<ShellSession> {
  const socket = join(dir, `tmux-${shell}`);
  // A UTF-8 locale, or the shells and tmux show Cyrillic names as bytes.
  const utf8 = { ...env, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' };
  const tmux = (...args: string[]) => spawnSync('tmux', ['-u', '-S', socket, ...args], { encoding: 'utf8', cwd: dir, env: utf8 });
  const screen = () => tmux('capture-pane', '-p', '-J').stdout;
  const started = tmux('-f', '/dev/null', 'new-session', '-d', '-x', '200', '-y', '40', ...START[shell]);
  if (started.status !== 0) throw new Error(`tmux: ${started.stderr}`);
  const session: ShellSession = {
    async complete(line, until, tabs = 1) {
      // Each step waits for the screen to show it: on a loaded machine the shell may still be drawing
      // the last completion when the next keys arrive, and a stale line would pass `until`.
      tmux('send-keys', 'C-u');
      tmux('send-keys', 'C-l');
      await waitFor(screen, (text) => lastPrompt(text) === '>', `${shell}: clear the line`);
      tmux('send-keys', '-l', line);
      await waitFor(screen, (text) => lastPrompt(text) === `> ${line}`.trimEnd(), `${shell}: type ${line}`);
      for (let i = 0; i < tabs; i++) tmux('send-keys', 'Tab');
      return waitFor(screen, until, `${shell}: ${line}`);
    },
    close: () => void tmux('kill-server'),
  };
  tmux('send-keys', '-l', SETUP[shell](script));
  tmux('send-keys', 'Enter');
  await waitFor(screen, (text) => /^READY$/m.test(text), `${shell} start`);
  return session;
}

/** Polls the screen until `until` holds; past a generous deadline, fails showing the screen. */
async function waitFor(screen: () => string, until: (text: string) => boolean, what: string): Promise<string> {
  const deadline = Date.now() + 15_000;
  let last: string | undefined;
  for (;;) {
    const text = screen();
    // Taken once two captures in a row agree, so a screen caught mid-redraw is not the answer.
    if (until(text) && text === last) return text;
    last = text;
    if (Date.now() > deadline) throw new Error(`${what}: the screen never matched:\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The command line the screen ends on (the last `> ` prompt), trailing blanks dropped. */
export function lastPrompt(text: string): string {
  const lines = text.split('\n').filter((line) => line.startsWith('> '));
  return (lines.at(-1) ?? '').replace(/\s+$/, '');
}

/** Whether Tab changed the command line: it shows more than, or other than, `line` (typing it shows prefixes). */
export function lineChanged(line: string): (screen: string) => boolean {
  const typed = `> ${line}`.trimEnd();
  return (screen) => !typed.startsWith(lastPrompt(screen));
}
