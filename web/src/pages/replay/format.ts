import type { Recording } from '../../api/recordings';

/** `1h 2m 3s`, `4m 5s`, `6s`. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const parts = [h > 0 ? `${h}h` : '', h > 0 || m > 0 ? `${m}m` : '', `${s % 60}s`];
  return parts.filter(Boolean).join(' ');
}

/** The person as PostHog names them: email, name, else the distinct id (always text). */
export function personLabel(recording: Recording): string {
  const props = recording.person?.properties ?? {};
  for (const key of ['email', 'name', 'username']) {
    const value = props[key];
    if (typeof value === 'string' && value) return value;
  }
  return recording.person?.name || recording.distinct_id;
}
