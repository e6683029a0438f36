// Runs in every test file: whatever temp homes a file made, none outlive it.
import { afterAll } from 'vitest';
import { cleanupTempHomes } from './helpers/cli.js';

afterAll(() => cleanupTempHomes());
