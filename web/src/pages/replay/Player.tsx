import { Alert, Center, Loader } from '@mantine/core';
import { useElementSize } from '@mantine/hooks';
import { useEffect, useRef, useState } from 'react';
import type { RrwebEvent } from './snapshots';

/** What the page does with the player: seek to a moment of the recording. */
export interface PlayerControls {
  seek(timestamp: number): void;
}

interface RrwebPlayer {
  goto(timeOffset: number, play?: boolean): void;
  pause(): void;
  addEventListener(event: string, handler: (params: unknown) => unknown): void;
  $destroy(): void;
}

/** rrweb-player draws its controller below the replay. */
const CONTROLLER_HEIGHT = 80;

/**
 * rrweb-player, loaded with its stylesheet only when a recording is opened: the library is large
 * and the first page of the app must stay small (web/README.md). The replay runs in rrweb's
 * sandboxed iframe (no scripts), so the recorded page's markup never runs in the app.
 */
export function Player({
  events,
  onReady,
  onTime,
}: {
  events: RrwebEvent[];
  onReady: (controls: PlayerControls) => void;
  onTime: (offsetMs: number) => void;
}) {
  const { ref: box, width } = useElementSize();
  const target = useRef<HTMLDivElement>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const callbacks = useRef({ onReady, onTime });
  callbacks.current = { onReady, onTime };
  // The player is built once, at the width the page first had (rebuilding it on every resize
  // would restart the replay).
  const [size, setSize] = useState(0);
  useEffect(() => {
    if (size === 0 && width > 0) setSize(Math.round(width));
  }, [size, width]);

  useEffect(() => {
    if (size === 0 || !target.current) return;
    const element = target.current;
    let player: RrwebPlayer | undefined;
    let cancelled = false;
    void (async () => {
      try {
        const [{ default: RrwebPlayerClass }] = await Promise.all([import('rrweb-player'), import('rrweb-player/dist/style.css')]);
        if (cancelled) return;
        if (!events.some((e) => e.type === 2)) throw new Error('The recording has no full snapshot to start from.');
        const height = Math.round(Math.min(size * 0.625, window.innerHeight - 260));
        player = new RrwebPlayerClass({
          target: element,
          // rrweb's eventWithTime; the events come from the API as rrweb wrote them.
          props: { events: events as never, width: size, height: Math.max(240, height), autoPlay: false, showController: true },
        }) as unknown as RrwebPlayer;
        const first = events[0]!.timestamp;
        player.addEventListener('ui-update-current-time', (params) => {
          const offset = (params as { payload?: unknown }).payload;
          if (typeof offset === 'number') callbacks.current.onTime(offset);
        });
        const controls: PlayerControls = {
          seek: (timestamp) => player?.goto(Math.max(0, timestamp - first), false),
        };
        setLoading(false);
        callbacks.current.onReady(controls);
      } catch (e) {
        if (!cancelled) {
          setLoading(false);
          setError(e instanceof Error ? e.message : String(e));
        }
      }
    })();
    return () => {
      cancelled = true;
      player?.pause();
      player?.$destroy();
      element.replaceChildren();
    };
  }, [events, size]);

  return (
    <div ref={box} data-testid="player">
      {loading && (
        <Center h={240}>
          <Loader aria-label="Loading the player" />
        </Center>
      )}
      {error !== null && (
        <Alert color="red" role="alert" title="This recording cannot be played">
          {error}
        </Alert>
      )}
      <div ref={target} style={{ minHeight: loading ? 0 : CONTROLLER_HEIGHT }} />
    </div>
  );
}
