import { Button, Center, Text } from '@mantine/core';
import { createColumnHelper, flexRender, getCoreRowModel, useReactTable } from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useRef } from 'react';
import type { EventRow } from '../../api/types';
import { DateTime } from '../../components/DateTime';
import { MAX_ROWS } from './event-pages';

const ROW_HEIGHT = 34;

/** A property's value as one line of text (never markup: React renders strings as text). */
export function displayValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

const column = createColumnHelper<EventRow>();
const COLUMNS = [
  column.accessor('event', { header: 'Event' }),
  column.accessor('distinct_id', { header: 'Person' }),
  column.accessor((row) => displayValue(row.properties.$current_url ?? row.properties.$pathname ?? row.properties.$lib), {
    id: 'where',
    header: 'URL / library',
  }),
  column.accessor('timestamp', { header: 'Time', cell: (info) => <DateTime value={info.getValue()} /> }),
];

/**
 * The events, as a virtualized list: only the rows in view are in the page, so thousands of events
 * and a steady stream of new ones scroll smoothly.
 */
export const EventsTable = memo(function EventsTable({
  events,
  onOpen,
  hasOlder,
  onLoadOlder,
  height,
}: {
  events: EventRow[];
  onOpen: (event: EventRow) => void;
  hasOlder: boolean;
  onLoadOlder: () => void;
  height: number;
}) {
  const table = useReactTable({ data: events, columns: COLUMNS, getCoreRowModel: getCoreRowModel(), getRowId: (row) => row.uuid });
  const rows = table.getRowModel().rows;
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 10,
    getItemKey: (index) => rows[index]!.id,
  });
  return (
    <div ref={scrollRef} className="events-scroll" style={{ height }} role="table" aria-label="Events" data-testid="events-table">
      {table.getHeaderGroups().map((group) => (
        <div key={group.id} className="events-row events-header" role="row" style={{ height: ROW_HEIGHT }}>
          {group.headers.map((header) => (
            <span key={header.id} role="columnheader">
              {flexRender(header.column.columnDef.header, header.getContext())}
            </span>
          ))}
        </div>
      ))}
      {rows.length === 0 ? (
        <Center p="xl">
          <Text c="dimmed">No events match these filters yet.</Text>
        </Center>
      ) : (
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((item) => {
            const row = rows[item.index]!;
            return (
              <div
                key={row.id}
                className="events-row"
                role="row"
                data-testid="event-row"
                tabIndex={0}
                style={{ position: 'absolute', top: 0, left: 0, right: 0, height: ROW_HEIGHT, transform: `translateY(${item.start}px)` }}
                onClick={() => onOpen(row.original)}
                onKeyDown={(e) => e.key === 'Enter' && onOpen(row.original)}
              >
                {row.getVisibleCells().map((cell) => (
                  <span key={cell.id} role="cell" title={displayValue(cell.getValue())}>
                    {flexRender(cell.column.columnDef.cell, cell.getContext())}
                  </span>
                ))}
              </div>
            );
          })}
        </div>
      )}
      {rows.length >= MAX_ROWS ? (
        // The list keeps the newest MAX_ROWS: an older page would fall off its end.
        <Center p="sm">
          <Text size="sm" c="dimmed" data-testid="events-list-full">
            The newest {MAX_ROWS.toLocaleString('en-US')} events are shown: narrow the filters or the date range to see older ones.
          </Text>
        </Center>
      ) : (
        hasOlder &&
        rows.length > 0 && (
          <Center p="sm">
            <Button variant="subtle" size="xs" onClick={onLoadOlder}>
              Load older events
            </Button>
          </Center>
        )
      )}
    </div>
  );
});
