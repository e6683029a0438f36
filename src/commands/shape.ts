// The run's `--fields` and `--query`, as the renderers take them (the query compiled: jmespath loads
// only when one is given).
import type { GlobalOptions } from '../deps.js';
import type { Shape } from '../output/shaped.js';

export async function shapeOf(globals: Pick<GlobalOptions, 'fields' | 'query'>): Promise<Shape | undefined> {
  if (!globals.fields && globals.query === undefined) return undefined;
  const query = globals.query === undefined ? undefined : await (await import('../output/query.js')).compileQuery(globals.query);
  return { fields: globals.fields, query };
}

/** Whether the records shown carry each score's change (the history is read for it). */
export function shapeShowsChange(globals: Pick<GlobalOptions, 'fields'>): boolean {
  return globals.fields?.includes('change') === true;
}
