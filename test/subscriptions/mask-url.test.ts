import { describe, expect, it } from 'vitest';
import { maskUrl } from '../../src/subscriptions/core/index.js';

describe('maskUrl', () => {
  it.each([
    ['https://hooks.slack.com/services/T0000/B0000/XXXXXXXXXXXXXXXXXXXXXXXX', 'https://hooks.slack.com/services/T0000/B0000/****'],
    // Slack's last segment goes whatever it looks like.
    ['https://hooks.slack.com/services/T0/B0/short', 'https://hooks.slack.com/services/T0/B0/****'],
    ['https://discord.com/api/webhooks/1234567890/abcDEF123ghiJKL456mno', 'https://discord.com/api/webhooks/1234567890/****'],
    ['https://example.com/hooks/reports', 'https://example.com/hooks/reports'],
    ['https://example.com/hook?token=abc&team=7&flag', 'https://example.com/hook?token=****&team=****&flag'],
    ['https://user:pass@example.com:8443/hook', 'https://****@example.com:8443/hook'],
    ['https://token@example.com/hook', 'https://****@example.com/hook'],
    ['http://127.0.0.1:9/hook#secret', 'http://127.0.0.1:9/hook#****'],
    ['https://example.com/h/a1b2c3d4e5f6a7b8c9d0', 'https://example.com/h/****'],
    ['not a url', '****'],
  ])('%s', (input, masked) => {
    expect(maskUrl(input)).toBe(masked);
  });
});
