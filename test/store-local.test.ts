// The store contract on the local-files store.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openLocalStore } from '../src/store/local/index.js';
import { storeContract } from './store-contract.js';

let root: string | undefined;
const storeAt = (dir: string) => openLocalStore({ cacheDir: join(dir, 'cache'), stateDir: join(dir, 'state'), historyDir: join(dir, 'state', 'history') });

storeContract('local files', {
  async open() {
    root = mkdtempSync(join(tmpdir(), 'rep-store-'));
    return storeAt(root);
  },
  async again() {
    return storeAt(root!);
  },
  async cleanup() {
    if (root) rmSync(root, { recursive: true, force: true });
    root = undefined;
  },
});
