/** The .d.ts files of the library entry (and their .d.cts twins), as { path, text } to write, after checking each. */
export function libraryDeclarations(root: string): Array<{ path: string; text: string }>;
