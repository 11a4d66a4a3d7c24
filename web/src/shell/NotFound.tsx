import { Anchor, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';

export function NotFound() {
  return (
    <Stack p="xl" gap="xs">
      <Title order={2}>Page not found</Title>
      <Text c="dimmed">Nothing lives at this address.</Text>
      <Anchor component={Link} to="/">
        Back to the start
      </Anchor>
    </Stack>
  );
}
