import { Center, Loader, type CenterProps } from '@mantine/core';

/** The spinner a page or section shows while its data loads, centred in its space. */
export function Loading(props: Pick<CenterProps, 'p' | 'h'>) {
  return (
    <Center {...props}>
      <Loader aria-label="Loading" />
    </Center>
  );
}
