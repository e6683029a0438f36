// A table's lines all fit the terminal, checked the cheap way for tables of thousands of lines.
import { expect } from 'vitest';
import { displayWidth } from '../../src/output/text-width.js';

/** Every line fits: one assertion naming the lines that do not (one per line cost seconds on 20,000 lines). */
export function expectFits(text: string, width: number): void {
  expect(text.split('\n').filter((line) => displayWidth(line) > width)).toEqual([]);
}
