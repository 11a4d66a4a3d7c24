import { Table } from '@mantine/core';

/** A column: its heading (empty for a column of buttons), or a heading with a width. */
export type Column = string | { label: string; w: number };

/** A table's header row. */
export function TableHead({ columns }: { columns: Column[] }) {
  return (
    <Table.Thead>
      <Table.Tr>
        {columns.map((column, i) =>
          typeof column === 'string' ? (
            <Table.Th key={i}>{column || null}</Table.Th>
          ) : (
            <Table.Th key={i} w={column.w}>
              {column.label}
            </Table.Th>
          ),
        )}
      </Table.Tr>
    </Table.Thead>
  );
}
