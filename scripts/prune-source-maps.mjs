// Source maps for rep's own code only. esbuild maps every bundled file and embeds its full text, so the
// maps carried megabytes of undici and the rest. This pass drops every node_modules source, its text
// and its mappings (a stack frame in dependency code then names the dist/ chunk, not a wrong src/ line),
// and records which packages the chunk holds in `x_bundled_packages`.

const DEPENDENCY = /(^|\/)node_modules\//;
const PACKAGE = /node_modules\/((?:@[^/]+\/)?[^/]+)\//g;
const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DIGIT = new Map([...BASE64].map((char, value) => [char, value]));

/** The source map without dependency sources: a parsed map in, a parsed map out. */
export function pruneSourceMap(map) {
  const kept = map.sources.map((source) => !DEPENDENCY.test(source));
  const newIndex = [];
  let count = 0;
  for (const keep of kept) newIndex.push(keep ? count++ : -1);
  const names = [];
  const nameIndex = new Map();
  // Decoding state (absolute values of the input) and encoding state (last values written).
  const read = { source: 0, line: 0, column: 0, name: 0 };
  const written = { source: 0, line: 0, column: 0, name: 0 };
  // Whether the last segment written maps somewhere: lookups fall back to it, even across lines.
  let mappedBefore = false;
  const lines = map.mappings.split(';').map((text) => {
    const out = [];
    let generated = 0;
    let writtenGenerated = 0;
    const unmapped = () => {
      if (!mappedBefore) return;
      out.push(encode([generated - writtenGenerated]));
      writtenGenerated = generated;
      mappedBefore = false;
    };
    for (const segment of text ? text.split(',') : []) {
      const fields = decode(segment);
      generated += fields[0];
      if (fields.length === 1) {
        unmapped();
        continue;
      }
      read.source += fields[1];
      read.line += fields[2];
      read.column += fields[3];
      if (fields.length === 5) read.name += fields[4];
      if (!kept[read.source]) {
        unmapped();
        continue;
      }
      const source = newIndex[read.source];
      const next = [generated - writtenGenerated, source - written.source, read.line - written.line, read.column - written.column];
      Object.assign(written, { source, line: read.line, column: read.column });
      if (fields.length === 5) {
        const name = map.names[read.name];
        if (!nameIndex.has(name)) nameIndex.set(name, names.push(name) - 1);
        next.push(nameIndex.get(name) - written.name);
        written.name = nameIndex.get(name);
      }
      out.push(encode(next));
      writtenGenerated = generated;
      mappedBefore = true;
    }
    return out.join(',');
  });
  const packages = new Set(map.sources.filter((source) => DEPENDENCY.test(source)).map((source) => [...source.matchAll(PACKAGE)].at(-1)?.[1]));
  return {
    ...map,
    sources: map.sources.filter((_, index) => kept[index]),
    ...(map.sourcesContent ? { sourcesContent: map.sourcesContent.filter((_, index) => kept[index]) } : {}),
    names,
    mappings: lines.join(';'),
    x_bundled_packages: [...packages].filter(Boolean).sort(),
  };
}

/** One segment's fields, each a base64 VLQ: five bits a digit, continuation bit 32, sign in bit 0. */
function decode(segment) {
  const fields = [];
  let value = 0;
  let shift = 0;
  for (const char of segment) {
    const digit = DIGIT.get(char);
    if (digit === undefined) throw new Error(`bad source map segment "${segment}"`);
    value += (digit & 31) * 2 ** shift;
    shift += 5;
    if (digit & 32) continue;
    fields.push(value % 2 ? -(value - 1) / 2 : value / 2);
    value = 0;
    shift = 0;
  }
  return fields;
}

function encode(fields) {
  let text = '';
  for (const field of fields) {
    let value = field < 0 ? -field * 2 + 1 : field * 2;
    do {
      let digit = value % 32;
      value = Math.floor(value / 32);
      if (value > 0) digit |= 32;
      text += BASE64[digit];
    } while (value > 0);
  }
  return text;
}
