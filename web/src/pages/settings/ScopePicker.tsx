import { Radio, SegmentedControl, Stack, Table, Text } from '@mantine/core';
import { SCOPE_OBJECTS } from '../../../../src/auth/scopes';

export type ScopeChoice = 'none' | 'read' | 'write';
export interface ScopeSelection {
  all: boolean;
  objects: Record<string, ScopeChoice>;
}

export const NO_SCOPES: ScopeSelection = { all: false, objects: {} };

/** The scopes a selection makes, as the API takes them: `["*"]` or `object:read|write` each. */
export function scopesOf(selection: ScopeSelection): string[] {
  if (selection.all) return ['*'];
  return Object.entries(selection.objects)
    .filter(([, choice]) => choice !== 'none')
    .map(([object, choice]) => `${object}:${choice}`);
}

const labelOf = (object: string) => object.replaceAll('_', ' ');

/** PostHog's scope picker: all access, or read / write per kind of object. */
export function ScopePicker({
  value,
  onChange,
  error,
}: {
  value: ScopeSelection;
  onChange: (next: ScopeSelection) => void;
  error?: string | undefined;
}) {
  return (
    <Stack gap="xs">
      <Radio.Group
        label="Scopes"
        value={value.all ? 'all' : 'some'}
        onChange={(mode) => onChange({ ...value, all: mode === 'all' })}
        error={error}
      >
        <Stack gap={6} mt={4}>
          <Radio value="all" label="All access: everything you can do, in every project" />
          <Radio value="some" label="Chosen scopes" />
        </Stack>
      </Radio.Group>
      {!value.all && (
        <Table.ScrollContainer minWidth={360} mah={320}>
          <Table verticalSpacing={4} data-testid="scope-picker">
            <Table.Tbody>
              {SCOPE_OBJECTS.map((object) => (
                <Table.Tr key={object}>
                  <Table.Td>
                    <Text size="sm" tt="capitalize">
                      {labelOf(object)}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <SegmentedControl
                      size="xs"
                      aria-label={`Access to ${labelOf(object)}`}
                      value={value.objects[object] ?? 'none'}
                      data={[
                        { value: 'none', label: 'No access' },
                        { value: 'read', label: 'Read' },
                        { value: 'write', label: 'Write' },
                      ]}
                      onChange={(choice) => onChange({ ...value, objects: { ...value.objects, [object]: choice as ScopeChoice } })}
                    />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Stack>
  );
}
