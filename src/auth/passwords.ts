import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Passwords are hashed with scrypt (memory-hard, in node without a dependency), and stored as
 * `scrypt$<N>$<r>$<p>$<salt>$<hash>` (base64url): the string names its own parameters, so they can be
 * raised later and older hashes still verify (and are rehashed at the next login). See
 * docs/decisions/0011-accounts.md for the choice of N=2^15, r=8, p=3 (OWASP's equivalent of
 * N=2^17, p=1 at a quarter of the memory: 32 MiB per hash).
 */
export const SCRYPT_PARAMS = { N: 2 ** 15, r: 8, p: 3 } as const;
const KEY_LENGTH = 64;
const SALT_BYTES = 16;

/** Refused before hashing: scrypt's cost does not depend on the length, but reading a huge body does. */
export const MAX_PASSWORD_LENGTH = 256;
export const MIN_PASSWORD_LENGTH = 8;

function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }, keyLength: number): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: 256 * params.N * params.r + 1024 * 1024 };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, SCRYPT_PARAMS, KEY_LENGTH);
  const { N, r, p } = SCRYPT_PARAMS;
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

interface Parsed {
  N: number;
  r: number;
  p: number;
  salt: Buffer;
  key: Buffer;
}

function parse(stored: string): Parsed | undefined {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  // Bounds keep a damaged row from asking for gigabytes.
  if (![N, r, p].every(Number.isSafeInteger) || N < 2 || N > 2 ** 20 || (N & (N - 1)) !== 0 || r < 1 || r > 32 || p < 1 || p > 16) {
    return undefined;
  }
  const salt = Buffer.from(parts[4]!, 'base64url');
  const key = Buffer.from(parts[5]!, 'base64url');
  if (salt.length === 0 || key.length < 16) return undefined;
  return { N, r, p, salt, key };
}

/** A hash of a password no one knows: verified against when the e-mail matches no user, so both cost the same. */
let decoy: Promise<string> | undefined;

/**
 * Whether `password` matches `stored`. `stored` null (no user, or no password set) still costs one
 * hash, so the answer's timing does not tell whether the e-mail has an account.
 */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parsed = stored ? parse(stored) : undefined;
  if (!parsed) {
    decoy ??= hashPassword(randomBytes(16).toString('hex'));
    const fake = parse(await decoy)!;
    await derive(password, fake.salt, fake, fake.key.length);
    return false;
  }
  const key = await derive(password, parsed.salt, parsed, parsed.key.length);
  return timingSafeEqual(key, parsed.key);
}

/** Whether a stored hash was made with weaker parameters than today's (then it is replaced at the next login). */
export function needsRehash(stored: string): boolean {
  const parsed = parse(stored);
  return !parsed || parsed.N < SCRYPT_PARAMS.N || parsed.r < SCRYPT_PARAMS.r || parsed.p < SCRYPT_PARAMS.p;
}

/** Django's MinimumLengthValidator, and a ceiling (DRF's max_length wording). */
export function passwordProblem(password: string): { detail: string; code: string } | undefined {
  if (password.length < MIN_PASSWORD_LENGTH) {
    return {
      detail: `This password is too short. It must contain at least ${MIN_PASSWORD_LENGTH} characters.`,
      code: 'password_too_short',
    };
  }
  if (password.length > MAX_PASSWORD_LENGTH) {
    return { detail: `Ensure this field has no more than ${MAX_PASSWORD_LENGTH} characters.`, code: 'max_length' };
  }
  return undefined;
}
