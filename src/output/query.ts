// `--query EXPR`: a JMESPath expression (as the aws and az CLIs take) over the JSON document rep
// would print; the result is printed as JSON (ndjson: an array's items a line each). jmespath is
// loaded here only, when a run gives --query.
import type { Format } from '../deps.js';
import { UsageError } from '../errors.js';
import type { IO } from '../io.js';
import { jsonDocument } from './json-colour.js';
import { jsonText } from './json-text.js';

export type Query = (document: unknown) => unknown;

/** Loads jmespath and checks the expression's syntax; a broken one is a usage error (exit 2), sent nowhere. */
export async function compileQuery(expression: string): Promise<Query> {
  const { search } = await import('jmespath');
  const run = (document: unknown): unknown => {
    try {
      return search(document, expression);
    } catch (error) {
      throw queryError(expression, error);
    }
  };
  try {
    search(null, expression);
  } catch (error) {
    // Only the syntax is checked now: a type error depends on the document.
    if (error instanceof Error && /^(Parser|Lexer)Error$/.test(error.name)) throw queryError(expression, error);
  }
  return run;
}

function queryError(expression: string, error: unknown): UsageError {
  const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0]!.replace(/[\u0000-\u001f\u007f]/g, '');
  return new UsageError(`invalid --query ${JSON.stringify(expression)}: ${reason} (JMESPath, see jmespath.org)`);
}

/** The query's result, as JSON (or, under ndjson, an array's items a line each). */
export function writeQueryResult(io: IO, result: unknown, format: Format): void {
  if (format !== 'ndjson') {
    io.out(jsonDocument(io, result));
    return;
  }
  for (const item of Array.isArray(result) ? result : [result]) if (!io.out(`${jsonText(item)}\n`)) return;
}
