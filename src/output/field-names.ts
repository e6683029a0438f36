// The stable field names of `--fields`: one list, read by the option's validation, `rep help fields`
// and the man page. Each names a part of the normalised view (what the table shows), not of a body.

/** The commands whose records `--fields` picks from. */
export type FieldsCommand = 'audit' | 'search' | 'pulse' | 'history';

export interface FieldDefinition {
  name: string;
  meaning: string;
  /** The commands whose records carry it. */
  of: readonly FieldsCommand[];
}

export const FIELDS: readonly FieldDefinition[] = [
  { name: 'query', meaning: 'the name or text asked for', of: ['audit', 'search', 'history'] },
  { name: 'name', meaning: "the company's name in the answer (a search result's name)", of: ['audit', 'search', 'history'] },
  { name: 'score', meaning: "the Reputation Score, on the server's own scale", of: ['audit', 'search', 'history'] },
  { name: 'scale', meaning: 'the top of the score’s scale, where the answer gives it', of: ['audit', 'history'] },
  { name: 'change', meaning: 'the score minus its previous recorded point', of: ['audit', 'history'] },
  { name: 'reviews', meaning: 'the total of reviews (the body’s own, else the sum over sources)', of: ['audit'] },
  { name: 'sources', meaning: 'how many sources summarise the score', of: ['audit', 'history'] },
  { name: 'type', meaning: "a search result's type: company, city, category", of: ['search'] },
  { name: 'index', meaning: 'the market index (pulse)', of: ['pulse'] },
  { name: 'at', meaning: 'when a history point was recorded (ISO 8601)', of: ['history'] },
  { name: 'error', meaning: "a batch name's error message (null when it succeeded)", of: ['audit'] },
  { name: 'exit', meaning: "a batch name's exit code (null when it succeeded)", of: ['audit'] },
];

export const FIELD_NAMES: readonly string[] = FIELDS.map((field) => field.name);

/** `name,score`: the list split, trimmed and checked; throws a one-line reason naming the valid fields. */
export function parseFieldList(value: string): string[] {
  const names = value.split(',').map((name) => name.trim());
  if (names.some((name) => name === '')) throw new Error(`expected field names separated by commas; fields: ${FIELD_NAMES.join(', ')}`);
  const unknown = names.filter((name) => !FIELD_NAMES.includes(name));
  if (unknown.length > 0) throw new Error(`unknown field${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')}; fields: ${FIELD_NAMES.join(', ')}`);
  return [...new Set(names)];
}

/** Whether `word` reads as a field list (`score,name`): two or more parts, every one a field name. */
export function looksLikeFieldList(word: string): boolean {
  const parts = word.split(',').map((part) => part.trim());
  return parts.length > 1 && parts.every((part) => FIELD_NAMES.includes(part));
}

/** The fields asked for that `command`'s records do not carry. */
export function fieldsNotOf(command: FieldsCommand, fields: readonly string[]): string[] {
  return fields.filter((name) => !FIELDS.find((field) => field.name === name)?.of.includes(command));
}

/** The field names `command`'s records carry. */
export function fieldsOf(command: FieldsCommand): string[] {
  return FIELDS.filter((field) => field.of.includes(command)).map((field) => field.name);
}
