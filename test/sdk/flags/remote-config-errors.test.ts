import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../helpers/server.js';

/**
 * `/array/<token>/config` and `config.js` for a token that names no environment, answered as
 * PostHog's RemoteConfig views (posthog/api/remote_config.py): Http404 for an unknown token,
 * ValidationError("Invalid token") for one that cannot be a token, in PostHog's error envelope.
 */
const server = useTestServer();

const NOT_FOUND = { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null };

describe('remote config for a token that names no environment', () => {
  it.each(['config', 'config.js'])('answers 404 Not found for an unknown token: /array/<token>/%s', async (file) => {
    // PostHog's check_token takes up to 200 characters: a long token is a token, and unknown.
    for (const token of ['phc_unknown0123456789', `phc_${'x'.repeat(196)}`]) {
      const res = await server.request(`/array/${token}/${file}`, { key: null });
      expect(res.status, token).toBe(404);
      expect(res.body).toEqual(NOT_FOUND);
    }
  });

  it.each(['config', 'config.js'])('answers 400 Invalid token for a token that cannot be one: /array/<token>/%s', async (file) => {
    for (const token of ['phc.bad', 'phc%20bad', 'phc_b%C3%A4d', `phc_${'x'.repeat(197)}`, `phc_${'x'.repeat(2000)}`]) {
      const res = await server.request(`/array/${token}/${file}`, { key: null });
      expect(res.status, token).toBe(400);
      expect(res.body).toEqual({ type: 'validation_error', code: 'invalid_input', detail: 'Invalid token', attr: null });
    }
  });

  it('still serves a known token', async () => {
    const ok = await server.request(`/array/${server.bootstrap.team.apiToken}/config`, { key: null });
    expect(ok.status).toBe(200);
    expect(ok.body.token).toBe(server.bootstrap.team.apiToken);
  });
});
