import type { RRWebEvent, SnapshotBatch } from '../recordings/core/index.js';

/** rrweb's event and node type numbers, as rrweb-player reads them. */
const EventType = { FullSnapshot: 2, IncrementalSnapshot: 3, Meta: 4, Plugin: 6 } as const;
const NodeType = { Document: 0, DocumentType: 1, Element: 2, Text: 3 } as const;
const Source = { MouseInteraction: 2, Input: 5 } as const;

function element(id: number, tagName: string, attributes: Record<string, string>, childNodes: unknown[]) {
  return { type: NodeType.Element, id, tagName, attributes, childNodes };
}

function text(id: number, textContent: string) {
  return { type: NodeType.Text, id, textContent };
}

/**
 * A short, replayable demo recording: a pricing page, two clicks on its button, some typing in
 * its e-mail field and a console message, as posthog-js would have recorded them.
 */
export function buildDemoRecording(sessionId: string, distinctId: string, startMs: number): SnapshotBatch {
  const at = (seconds: number) => startMs + seconds * 1000;
  const page = {
    type: NodeType.Document,
    id: 1,
    childNodes: [
      { type: NodeType.DocumentType, id: 2, name: 'html', publicId: '', systemId: '' },
      element(3, 'html', {}, [
        element(4, 'head', {}, [element(5, 'title', {}, [text(6, 'Pricing – Hoglet demo')])]),
        element(7, 'body', { style: 'font-family:sans-serif;margin:0' }, [
          element(8, 'h1', { style: 'background:#f9bd2b;margin:0;padding:24px' }, [text(9, 'Pricing')]),
          element(10, 'input', { id: 'email', placeholder: 'you@example.com', value: '' }, []),
          element(11, 'button', { id: 'buy' }, [text(12, 'Start free trial')]),
        ]),
      ]),
    ],
  };
  const events: RRWebEvent[] = [
    { type: EventType.Meta, timestamp: at(0), data: { href: 'https://demo.hoglet.dev/pricing', width: 1280, height: 720 } },
    { type: EventType.FullSnapshot, timestamp: at(0.1), data: { node: page, initialOffset: { top: 0, left: 0 } } },
    { type: EventType.IncrementalSnapshot, timestamp: at(2), data: { source: Source.MouseInteraction, type: 2, id: 10, x: 120, y: 110 } },
    { type: EventType.IncrementalSnapshot, timestamp: at(3), data: { source: Source.Input, id: 10, text: 'ada@', isChecked: false } },
    {
      type: EventType.IncrementalSnapshot,
      timestamp: at(4),
      data: { source: Source.Input, id: 10, text: 'ada@example.com', isChecked: false },
    },
    {
      type: EventType.Plugin,
      timestamp: at(5),
      data: { plugin: 'rrweb/console@1', payload: { level: 'log', payload: ['"trial form filled"'], trace: [] } },
    },
    { type: EventType.IncrementalSnapshot, timestamp: at(6), data: { source: Source.MouseInteraction, type: 2, id: 11, x: 90, y: 160 } },
    { type: EventType.IncrementalSnapshot, timestamp: at(7), data: { source: Source.MouseInteraction, type: 2, id: 11, x: 92, y: 161 } },
  ] as RRWebEvent[];
  return {
    sessionId,
    windowId: `${sessionId}-window`,
    distinctId,
    snapshotSource: 'web',
    snapshotLibrary: 'web',
    uuid: null,
    snapshotBytes: 0,
    events,
    droppedItems: 0,
  };
}
