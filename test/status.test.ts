// `rep status`'s record (src/commands/status.ts builds it, src/output/status.ts writes it): its JSON field names.
import { describe, expect, it } from 'vitest';
import { statusView } from '../src/commands/status.js';

describe('the status view', () => {
  it('status: the key masked, times as ISO 8601, and nulls for what is unknown', () => {
    const settings = {
      baseUrl: new URL('https://api.example.com/api'),
      baseUrlSource: 'config',
      key: 'sk_live_1234567890abcd',
      keySource: 'env',
      configPath: '/c',
    } as never;
    expect(statusView(settings, { lastHour: 3, rateLimit: { remaining: 2, seenAt: 0 } })).toEqual({
      base_url: 'https://api.example.com/api',
      base_url_source: 'config',
      key: '****abcd',
      key_source: 'env',
      config_path: '/c',
      requests_last_hour: 3,
      rate_limit: { limit: null, remaining: 2, reset_at: null, seen_at: '1970-01-01T00:00:00.000Z' },
      cache: null,
      history: null,
    });
    const none = statusView({ baseUrlSource: 'none', keySource: 'none', configPath: '/c' } as never, undefined);
    expect(none).toMatchObject({ base_url: null, key: null, requests_last_hour: 0, rate_limit: null });
    expect(statusView(settings, { lastHour: 0, rateLimit: { limit: 100, resetAt: 1000, seenAt: 0 } }).rate_limit).toEqual({
      limit: 100,
      remaining: null,
      reset_at: '1970-01-01T00:00:01.000Z',
      seen_at: '1970-01-01T00:00:00.000Z',
    });
  });
});
