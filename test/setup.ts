// Runs in every test file: every test must assert something, and whatever temp homes a file made,
// none outlive it.
import { afterAll, beforeEach, expect } from 'vitest';
import { cleanupTempHomes } from './helpers/cli.js';

beforeEach(() => {
  expect.hasAssertions();
});
afterAll(() => cleanupTempHomes());
