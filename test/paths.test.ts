// Where rep keeps its files is a pure function of the environment it is given and the platform:
// process.env is never read, so a run in a test's own process finds only the test's temp home.
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { repPaths } from '../src/config/paths.js';

describe('repPaths', () => {
  it('on Linux: XDG_CONFIG_HOME, XDG_STATE_HOME and XDG_CACHE_HOME, each with rep/', () => {
    const env = { HOME: '/home/u', XDG_CONFIG_HOME: '/x/config', XDG_STATE_HOME: '/x/state', XDG_CACHE_HOME: '/x/cache' };
    expect(repPaths(env, 'linux')).toEqual({
      configDir: '/x/config/rep',
      configFile: '/x/config/rep/config.json',
      stateDir: '/x/state/rep',
      cacheDir: '/x/cache/rep',
    });
  });

  it('on Linux without XDG_*: ~/.config, ~/.local/state and ~/.cache', () => {
    expect(repPaths({ HOME: '/home/u' }, 'linux')).toEqual({
      configDir: '/home/u/.config/rep',
      configFile: '/home/u/.config/rep/config.json',
      stateDir: '/home/u/.local/state/rep',
      cacheDir: '/home/u/.cache/rep',
    });
  });

  it('a relative XDG_* path is ignored, as the XDG spec says', () => {
    const paths = repPaths({ HOME: '/home/u', XDG_CONFIG_HOME: 'relative/config', XDG_STATE_HOME: './state', XDG_CACHE_HOME: '' }, 'linux');
    expect([paths.configDir, paths.stateDir, paths.cacheDir]).toEqual(['/home/u/.config/rep', '/home/u/.local/state/rep', '/home/u/.cache/rep']);
  });

  it('REP_CONFIG_DIR chooses the config directory only', () => {
    const paths = repPaths({ HOME: '/home/u', REP_CONFIG_DIR: '/etc/rep-here' }, 'linux');
    expect(paths).toMatchObject({ configDir: '/etc/rep-here', configFile: '/etc/rep-here/config.json', stateDir: '/home/u/.local/state/rep' });
  });

  it('on macOS and Windows: the platform directories', () => {
    expect(repPaths({ HOME: '/Users/u' }, 'darwin')).toEqual({
      configDir: '/Users/u/Library/Preferences/rep',
      configFile: '/Users/u/Library/Preferences/rep/config.json',
      stateDir: '/Users/u/Library/Logs/rep',
      cacheDir: '/Users/u/Library/Caches/rep',
    });
    const windows = repPaths({ USERPROFILE: 'C:\\Users\\u', APPDATA: 'C:\\Users\\u\\AppData\\Roaming', LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' }, 'win32');
    expect(windows.configDir).toBe(join('C:\\Users\\u\\AppData\\Roaming', 'rep', 'Config'));
    expect(windows.stateDir).toBe(join('C:\\Users\\u\\AppData\\Local', 'rep', 'Log'));
    expect(windows.cacheDir).toBe(join('C:\\Users\\u\\AppData\\Local', 'rep', 'Cache'));
  });

  it('never reads process.env', () => {
    vi.stubEnv('XDG_CONFIG_HOME', '/from/process/env');
    vi.stubEnv('XDG_STATE_HOME', '/from/process/env');
    try {
      const paths = repPaths({ HOME: '/home/u' }, 'linux');
      expect(JSON.stringify(paths)).not.toContain('/from/process/env');
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
