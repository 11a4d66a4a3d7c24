import { createHash, randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** PostHog's generate_random_token: `nbytes` random bytes written in base62, no padding. */
export function generateRandomToken(nbytes = 32): string {
  let n = BigInt('0x' + randomBytes(nbytes).toString('hex'));
  let out = '';
  while (n > 0n) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out || '0';
}

export const generatePersonalApiKey = () => `phx_${generateRandomToken(35)}`;
export const generateProjectApiToken = () => `phc_${generateRandomToken(32)}`;
/** PostHog's generate_random_token_secret: 35 bytes, as a personal API key, for local evaluation. */
export const generateSecretApiToken = () => `phs_${generateRandomToken(35)}`;

/**
 * How a personal API key is stored: unsalted SHA-256, as PostHog does. The keys carry 280 random
 * bits, so a salt or a slow hash would add nothing but lookup cost.
 */
export function hashPersonalApiKey(rawKey: string): string {
  return 'sha256$' + createHash('sha256').update(rawKey, 'utf8').digest('hex');
}

/** `phx_...Zxz7`: first four and last four characters. */
export function maskKey(rawKey: string): string {
  if (rawKey.length < 16) return '********';
  return `${rawKey.slice(0, 4)}...${rawKey.slice(-4)}`;
}
