/**
 * Semantic versions for the semver_* operators, following the Rust `semver` crate that the
 * reference uses, after PostHog's own canonicalisation (strip a leading "v", pad to three
 * numeric parts, drop leading zeros) so app versions like "3.08" or "2.48" parse.
 */
import { toPropertyString } from './value-coercion.js';

export interface SemVersion {
  major: number;
  minor: number;
  patch: number;
  pre: string[];
  build: string[];
}

const NUMERIC = /^(?:0|[1-9]\d*)$/;
const IDENTIFIER = /^[0-9A-Za-z-]+$/;
const STRICT_VERSION = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z.-]+))?(?:\+([0-9A-Za-z.-]+))?$/;

/** "v1.2.3" → "1.2.3" (then trimmed). */
export function stripVersionPrefix(text: string): string {
  return (text.startsWith('v') ? text.slice(1) : text).trim();
}

function stripLeadingZeros(part: string): string {
  if (part === '' || !/^\d+$/.test(part)) return part;
  const trimmed = part.replace(/^0+/, '');
  return trimmed === '' ? '0' : trimmed;
}

/** Pads the numeric core to three parts and strips leading zeros; keeps -pre/+build as is. */
export function canonicalizeVersion(text: string): string {
  const cut = text.search(/[-+]/);
  const core = cut === -1 ? text : text.slice(0, cut);
  const suffix = cut === -1 ? '' : text.slice(cut);
  const parts = core.split('.').map(stripLeadingZeros);
  while (parts.length < 3) parts.push('0');
  return parts.join('.') + suffix;
}

function parseStrict(text: string): SemVersion | null {
  const m = STRICT_VERSION.exec(text);
  if (!m) return null;
  const pre = m[4] ? m[4].split('.') : [];
  const build = m[5] ? m[5].split('.') : [];
  // Pre-release identifiers must be non-empty and numeric ones carry no leading zeros.
  if (pre.some((id) => !IDENTIFIER.test(id) || (/^\d+$/.test(id) && !NUMERIC.test(id)))) return null;
  if (build.some((id) => !IDENTIFIER.test(id))) return null;
  const [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (![major, minor, patch].every(Number.isSafeInteger)) return null;
  return { major, minor, patch, pre, build };
}

/** A property or filter value as a version, or null when it is not one. */
export function parseVersion(value: unknown): SemVersion | null {
  return parseStrict(canonicalizeVersion(stripVersionPrefix(toPropertyString(value))));
}

function compareIdentifiers(a: string[], b: string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i]!;
    const y = b[i]!;
    const xNum = /^\d+$/.test(x);
    const yNum = /^\d+$/.test(y);
    if (xNum && yNum) {
      const diff = BigInt(x) - BigInt(y);
      if (diff !== 0n) return diff < 0n ? -1 : 1;
    } else if (xNum !== yNum) {
      return xNum ? -1 : 1; // numeric identifiers sort before alphanumeric ones
    } else if (x !== y) {
      return x < y ? -1 : 1;
    }
  }
  return Math.sign(a.length - b.length);
}

/** A release sorts after any of its pre-releases. */
function comparePre(a: string[], b: string[]): number {
  if (a.length === 0 || b.length === 0) return Math.sign(b.length - a.length);
  return compareIdentifiers(a, b);
}

/**
 * Total order of the Rust crate: SemVer precedence, then build metadata as a final tie-break
 * (so "1.0.0+a" and "1.0.0+b" are not equal there either).
 */
export function compareVersions(a: SemVersion, b: SemVersion): number {
  return (
    Math.sign(a.major - b.major) ||
    Math.sign(a.minor - b.minor) ||
    Math.sign(a.patch - b.patch) ||
    comparePre(a.pre, b.pre) ||
    compareIdentifiers(a.build, b.build)
  );
}

/** A single requirement comparator (`~1.2.3`, `^1.2.3`, `1.2.x`). */
interface Comparator {
  op: 'tilde' | 'caret' | 'wildcard';
  major: number | null;
  minor: number | null;
  patch: number | null;
  pre: string[];
}

function matchesComparator(c: Comparator, v: SemVersion): boolean {
  // At or above the comparator's own version (ignoring build), within the same patch level.
  const atLeast = (patch: number) => v.patch > patch || (v.patch === patch && comparePre(v.pre, c.pre) >= 0);
  if (c.op === 'wildcard') {
    if (c.major === null) return true;
    if (v.major !== c.major) return false;
    return c.minor === null || v.minor === c.minor;
  }
  const major = c.major!;
  const minor = c.minor!;
  const patch = c.patch!;
  if (c.op === 'tilde') return v.major === major && v.minor === minor && atLeast(patch);
  if (v.major !== major) return false;
  if (major > 0) return v.minor > minor || (v.minor === minor && atLeast(patch));
  if (minor > 0) return v.minor === minor && atLeast(patch);
  return v.minor === 0 && v.patch === patch && comparePre(v.pre, c.pre) >= 0;
}

/**
 * Cargo rule: a pre-release version only satisfies a requirement whose comparator names the
 * same major.minor.patch with a pre-release of its own.
 */
function matchesRequirement(c: Comparator, v: SemVersion): boolean {
  if (!matchesComparator(c, v)) return false;
  if (v.pre.length === 0) return true;
  return c.pre.length > 0 && c.major === v.major && c.minor === v.minor && c.patch === v.patch;
}

function comparatorFromVersion(op: 'tilde' | 'caret', text: string): Comparator | null {
  const parsed = parseStrict(canonicalizeVersion(stripVersionPrefix(text)));
  if (!parsed) return null;
  return { op, major: parsed.major, minor: parsed.minor, patch: parsed.patch, pre: parsed.pre };
}

/**
 * A bare requirement like "1" or "0.0" is Cargo's partial caret: "^1" = 1.x and "^0.0" = 0.0.x,
 * which differs from the padded "^0.0.0" (exactly 0.0.0) that the caret operator uses.
 */
function partialCaretComparator(parts: string[]): Comparator | null {
  const plainNumbers = parts.every((part) => NUMERIC.test(part));
  if (plainNumbers && parts.length === 1) {
    return { op: 'wildcard', major: Number(parts[0]), minor: null, patch: null, pre: [] };
  }
  if (plainNumbers && parts.length === 2 && parts[0] === '0') {
    return { op: 'wildcard', major: 0, minor: Number(parts[1]), patch: null, pre: [] };
  }
  return comparatorFromVersion('caret', parts.join('.'));
}

/** "1.*", "1.2.*", "1.*.*", "*"; a pattern without a wildcard is a caret requirement, as in Cargo. */
function wildcardComparator(text: string): Comparator | null {
  const pattern = stripVersionPrefix(text)
    .split('.')
    .map(stripLeadingZeros)
    .map((part) => (part === '*' || part === 'x' || part === 'X' ? '*' : part));
  if (!pattern.includes('*')) return partialCaretComparator(pattern);
  if (pattern.length > 3) return null;
  const firstWildcard = pattern.indexOf('*');
  // Once a part is a wildcard, every later part must be one too ("1.*.3" is invalid).
  if (pattern.slice(firstWildcard).some((part) => part !== '*')) return null;
  const numbers = pattern.slice(0, firstWildcard);
  if (!numbers.every((part) => NUMERIC.test(part))) return null;
  return {
    op: 'wildcard',
    major: numbers[0] !== undefined ? Number(numbers[0]) : null,
    minor: numbers[1] !== undefined ? Number(numbers[1]) : null,
    patch: null,
    pre: [],
  };
}

export type SemverRequirementOperator = 'semver_tilde' | 'semver_caret' | 'semver_wildcard';

/** Whether `version` satisfies the requirement; null when the requirement is not parsable. */
export function satisfiesRequirement(operator: SemverRequirementOperator, requirement: unknown, version: SemVersion): boolean | null {
  const text = toPropertyString(requirement);
  const comparator =
    operator === 'semver_wildcard'
      ? wildcardComparator(text)
      : comparatorFromVersion(operator === 'semver_tilde' ? 'tilde' : 'caret', text);
  return comparator ? matchesRequirement(comparator, version) : null;
}
