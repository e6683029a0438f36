// Server text reaches the terminal and a Markdown report inert, through main(): no invisible
// characters (zero-width, tags) and no link GFM would make of a bare URL or e-mail address.
import { describe, expect, it } from 'vitest';
import { useRep } from './helpers/cli.js';

const session = useRep({ env: () => ({ REP_API_KEY: 'test-key' }) });
const INVISIBLE = /[\u200b\u2060\ufeff\u202e]|\udb40[\udc00-\udc7f]/;

async function auditOf(body: unknown, format: string) {
  const server = await session.server();
  server.expect('/api/audit', { body });
  return session.rep(['audit', 'Pay Pal', '--format', format], { env: { REP_BASE_URL: server.baseUrl.href, REP_MAX_AGE: '0', NO_COLOR: '1' } });
}

describe('server text, inert', () => {
  const body = {
    name: 'Pay\u200bPal\u2060 Shop\u{E0049}\u{E0047}\u{E004E}\u{E004F}\u{E0052}\u{E0045} 👨\u200d👩\u200d👧',
    score: 80,
    sources: [{ source: 'Visit https://evil.example/login or www.evil.example, mail help@evil.example', rating: 4 }],
  };

  it('a table shows no zero-width or tag characters, and keeps emoji sequences', async () => {
    const result = await auditOf(body, 'table');
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(INVISIBLE);
    expect(result.stdout).toContain('PayPal Shop 👨\u200d👩\u200d👧');
  });

  it('Markdown puts each bare URL and e-mail address in a code span', async () => {
    const result = await auditOf(body, 'markdown');
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(INVISIBLE);
    expect(result.stdout).toContain('Visit `https://evil.example/login` or `www.evil.example,` mail `help@evil.example`');
    const outsideCode = result.stdout.replace(/`[^`]*`/g, '');
    expect(outsideCode).not.toMatch(/https?:|www\.|@evil/);
  });
});
