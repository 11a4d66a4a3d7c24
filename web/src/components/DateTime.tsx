import { formatDate, formatDateTime, formatDateTimeFull, toDate } from '../lib/format';

/**
 * A date-time as the app shows it (lib/format), in a `<time>` element that carries the instant
 * and whose tooltip gives it to the second with its zone.
 */
export function DateTime({
  value,
  timeZone,
  dateOnly,
}: {
  value: string | number | Date | null | undefined;
  timeZone?: string;
  dateOnly?: boolean;
}) {
  const date = toDate(value);
  if (!date) return <>{typeof value === 'string' ? value : ''}</>;
  return (
    <time
      dateTime={date.toISOString()}
      title={formatDateTimeFull(date, timeZone)}
      data-time-zone={timeZone}
      data-date-only={dateOnly || undefined}
    >
      {dateOnly ? formatDate(date, timeZone) : formatDateTime(date, timeZone)}
    </time>
  );
}
