// `rep help TOPIC`: what a user looks up in the terminal rather than the README. Plain text, so the
// same words reach `rep help`, completion (the names) and the man page (scripts/man.mjs).
import { FIELDS } from '../output/field-names.js';
import type { TOPIC_NAMES } from '../program/help.js';

export type TopicName = (typeof TOPIC_NAMES)[number];

/** `  name   meaning` lines, the meanings aligned. */
function rows(entries: ReadonlyArray<readonly [string, string]>): string {
  const width = Math.max(...entries.map(([name]) => name.length));
  return entries.map(([name, meaning]) => `  ${name.padEnd(width)}  ${meaning}\n`).join('');
}

const ENVIRONMENT: ReadonlyArray<readonly [string, string]> = [
  ['REP_API_KEY', 'the API key; wins over the config file (for CI)'],
  ['REP_BASE_URL', 'the base URL; wins over the config file, loses to --base-url'],
  ['REP_CONFIG_DIR', 'the directory of the config file (absolute)'],
  ['REP_CACHE_DIR', 'the answer cache (default $XDG_CACHE_HOME/rep)'],
  ['REP_MAX_AGE', 'how old a cached answer may be, as --max-age (which wins)'],
  ['REP_HISTORY_FILE', 'the local history (default in $XDG_STATE_HOME/rep)'],
  ['REP_PROFILE', 'the profile: its base URL, key and store (--profile wins)'],
  ['REP_CSV_BOM', '1: CSV starts with a UTF-8 byte-order mark, as --bom'],
  ['REP_DEBUG', '1: the same as --debug (for CI, where flags are hard to add)'],
  ['NO_COLOR, TERM=dumb', 'colour off; FORCE_COLOR: colour on'],
  ['COLUMNS', 'the width of a table that goes to no terminal (default 80)'],
  ['HTTPS_PROXY, HTTP_PROXY, NO_PROXY', 'honoured for API calls (never for loopback hosts)'],
  ['HOME, XDG_CONFIG_HOME, XDG_STATE_HOME, XDG_CACHE_HOME', 'where rep keeps its files'],
];

const EXIT_CODES: ReadonlyArray<readonly [string, string]> = [
  ['0', 'success (a search with no matches is a success)'],
  ['1', 'error: server 5xx, malformed answer, broken config file, anything else'],
  ['2', 'usage: unknown command or option, bad value, empty argument, bad base URL'],
  ['3', 'not found: the audited company does not exist; no history'],
  ['4', 'authentication: no base URL, a key needed but not set, key rejected'],
  ['5', 'rate limited'],
  ['6', 'network: refused, DNS, TLS, timeout, connection reset'],
  ['7', 'gate: a score under --fail-under or dropped by more than --fail-on-drop'],
  ['130', 'interrupted (Ctrl-C, SIGTERM, SIGHUP, SIGQUIT)'],
];

const TOPICS: Record<TopicName, () => string> = {
  environment: () => `Environment variables (a flag wins over its variable, a variable over the config file):\n\n${rows(ENVIRONMENT)}`,
  'exit-codes': () =>
    `Exit codes:\n\n${rows(EXIT_CODES)}\nA batch exits 0 only if every name succeeded; 5 if a rate limit stopped it; otherwise the code\nof its first failure (an error outranks a gate).\n`,
  fields: () =>
    `Fields for --fields (comma-separated; the normalised record, the same whichever server answers):\n\n${rows(
      FIELDS.map((field) => [field.name, `${field.meaning} [${field.of.join(', ')}]`]),
    )}\nExample: rep audit --file names.txt --fields query,score,change --format csv\nA field a command's records lack is null; one it never has is a usage error (exit 2).\n`,
  formats: () =>
    `Output formats (--format; default table on a terminal, json when piped):

  table     for people: the score stands out, sources and results as tables
  json      the server's JSON document as it came (a batch: an array of {query, result|error})
  ndjson    one compact JSON document a line (search: a line per result; a batch: a record per name)
  csv       a header row and flat rows (--bom for Excel)
  markdown  GitHub-flavoured tables, for job summaries and comments

--fields LIST prints only those fields of the normalised records, in any format (rep help fields).
--query EXPR runs a JMESPath expression (jmespath.org, as aws and az take) over the JSON document
that would be printed (the body; with --fields, the picked records) and prints the result as JSON,
indented (ndjson: an array's items a line each); it cannot be combined with table, csv or markdown.
JSON is coloured on a terminal and plain when piped or under NO_COLOR / --no-color.
`,
};

export function topicText(name: TopicName): string {
  return TOPICS[name]();
}
