// Writes dist/rep.1, the man page, from the built CLI's own help text (`rep --help`, each command's
// `--help`, each `rep help TOPIC`), so `man rep` cannot say anything `--help` does not.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Text as roff shows it verbatim: backslashes doubled, a leading dot or quote made inert. */
function roffText(text) {
  return text
    .replace(/\\/g, '\\e')
    .split('\n')
    .map((line) => (/^[.']/.test(line) ? `\\&${line}` : line))
    .join('\n');
}

/** What `rep …args` prints, run by the built bin (all at once: the build waited ~0.7 s on them one by one). */
function help(bin, home, args) {
  const env = { PATH: process.env.PATH ?? '', HOME: home, XDG_CACHE_HOME: join(home, 'cache'), NO_COLOR: '1', COLUMNS: '80' };
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [bin, ...args], { encoding: 'utf8', env }, (error, stdout, stderr) => {
      if (error) reject(new Error(`rep ${args.join(' ')} exited ${error.code}: ${stderr}`));
      else resolve(stdout.trimEnd());
    });
  });
}

/** The commands `rep --help` lists, and the topics `rep help` takes (its argument's choices). */
function listed(main, helpHelp) {
  const block = main.split('\nCommands:\n')[1]?.split('\n\n')[0] ?? '';
  const commands = [...block.matchAll(/^ {2}([a-z][\w-]*)/gm)].map((match) => match[1]).filter((name) => name !== 'help');
  const choices = /choices: ([^)]*)\)/.exec(helpHelp)?.[1] ?? '';
  return { commands, topics: [...choices.matchAll(/"([^"]+)"/g)].map((match) => match[1]) };
}

/** `rep --help` as DESCRIPTION, a subsection per command, a section per `rep help` topic. */
export async function writeManPage(bin, file, version) {
  const home = mkdtempSync(join(tmpdir(), 'rep-man-'));
  try {
    const show = (...args) => help(bin, home, args);
    const verbatim = (text) => `.nf\n${roffText(text)}\n.fi\n`;
    const [main, helpHelp] = await Promise.all([show('--help'), show('help', '--help')]);
    const { commands, topics } = listed(main, helpHelp);
    const [commandHelp, topicHelp] = await Promise.all([
      Promise.all(commands.map((name) => show(name, '--help'))),
      Promise.all(topics.map((topic) => show('help', topic))),
    ]);
    const sections = [
      `.TH REP 1 "" "rep ${version}" "User Commands"\n`,
      '.SH NAME\nrep \\- reputation data from the command line: audit, search, pulse\n',
      '.SH SYNOPSIS\n.B rep\n[\\fIoptions\\fR] \\fIcommand\\fR [\\fIarguments\\fR]\n',
      `.SH DESCRIPTION\n${verbatim(main)}`,
      '.SH COMMANDS\n',
      ...commands.map((name, i) => `.SS rep ${name}\n${verbatim(commandHelp[i])}`),
      ...topics.map((topic, i) => `.SH ${topic.toUpperCase().replace('-', ' ')}\n${verbatim(topicHelp[i])}`),
      '.SH SEE ALSO\n\\fBrep help\\fR \\fItopic\\fR; the README of the rep-cli package.\n',
    ];
    await writeFile(file, sections.join(''));
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
