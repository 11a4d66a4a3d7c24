import { Button, Divider, Group, Paper, ScrollArea, SegmentedControl, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { sourceOf, useSaveInsight, type Insight, type InsightSource } from '../../api/insights';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useEnvironment } from '../../shell/ProjectScope';
import { FunnelsEditor } from './editor/FunnelsEditor';
import { cleanSource, hashOfSource, newTrends, sourceOfHash, unfinishedQuery } from './editor/query-defaults';
import { switchedSource, type InsightKind } from './editor/switch-kind';
import { LifecycleEditor } from './editor/LifecycleEditor';
import { StickinessEditor } from './editor/StickinessEditor';
import { RetentionEditor } from './editor/RetentionEditor';
import { TrendsEditor } from './editor/TrendsEditor';
import { AddToDashboard } from './AddToDashboard';
import { DeleteInsight } from './DeleteInsight';
import { InsightHistory } from './InsightHistory';
import { InsightSubscriptions } from './InsightSubscriptions';
import { InsightViz } from './viz/InsightViz';

const KINDS: readonly InsightKind[] = ['TrendsQuery', 'FunnelsQuery', 'RetentionQuery', 'LifecycleQuery', 'StickinessQuery'];

/**
 * The builder of a new or saved insight: name and description, the query's editor, its chart
 * (run as the query changes), saving (PostHog's InsightVizNode); a saved one's subscriptions and
 * change history below.
 */
export function InsightEditor({ insight }: { insight: Insight | null }) {
  const environment = useEnvironment();
  const base = `/project/${environment.id}`;
  const navigate = useNavigate();
  const location = useLocation();
  const save = useSaveInsight(environment.id);
  const [source, setSource] = useState<InsightSource>(
    () => sourceOf(insight?.query) ?? (insight ? null : sourceOfHash(location.hash)) ?? newTrends(),
  );
  // An unsaved insight's query lives in the address, so a reload or a shared link keeps it; an
  // address changed from outside (a link followed, the address bar) brings its own query in.
  const hash = insight ? null : hashOfSource(source);
  // The hashes this editor wrote and the address has not settled on yet: one the address moves to
  // that is not among them came from outside. Edits can outrun the address, so it is a set.
  const written = useRef(new Set([location.hash]));
  const seen = useRef(location.hash);
  useEffect(() => {
    if (hash === null) return;
    if (location.hash !== seen.current) {
      seen.current = location.hash;
      const adopted = written.current.has(location.hash) ? null : sourceOfHash(location.hash);
      if (adopted) {
        written.current = new Set([location.hash]);
        setSource(adopted);
        return;
      }
    }
    if (hash === location.hash) written.current = new Set([hash]);
    else {
      written.current.add(hash);
      void navigate({ hash }, { replace: true });
    }
  }, [hash, location.hash, navigate]);
  const [name, setName] = useState(insight?.name ?? '');
  const [description, setDescription] = useState(insight?.description ?? '');
  const query = useMemo(() => cleanSource(source), [source]);
  // Not run nor saved until it can be: the server would refuse it, naming a field.
  const unfinished = unfinishedQuery(query);
  const [saveTried, setSaveTried] = useState(false);
  const saved = sourceOf(insight?.query);
  const dirty =
    !insight ||
    JSON.stringify(query) !== JSON.stringify(saved && cleanSource(saved)) ||
    name !== (insight.name ?? '') ||
    description !== insight.description;

  const submit = () => {
    setSaveTried(true);
    if (unfinished) return;
    save.mutate(
      { id: insight?.id, body: { name: name.trim() || null, description, query: { kind: 'InsightVizNode', source: query } } },
      { onSuccess: (result) => !insight && void navigate(`${base}/insights/${result.short_id}`, { replace: true }) },
    );
  };

  // Each type's query as last shown, so that switching back brings its own settings back.
  const shown = useRef<Partial<Record<InsightKind, InsightSource>>>({});
  const switchKind = (kind: string) => {
    if (kind === source.kind || !KINDS.includes(kind as InsightKind)) return;
    shown.current[source.kind] = source;
    setSource(switchedSource(source, kind as InsightKind, shown.current[kind as InsightKind]));
  };

  return (
    <Stack>
      <Group justify="space-between" align="flex-start">
        <Title order={2} data-testid="insight-title" miw={0} style={{ overflowWrap: 'anywhere' }}>
          {insight ? insight.name || 'Untitled insight' : 'New insight'}
        </Title>
        <Group gap="xs">
          {insight && <DeleteInsight insight={insight} />}
          {insight && <AddToDashboard environmentId={environment.id} insight={insight} />}
          <Button onClick={submit} loading={save.isPending} disabled={!dirty}>
            {insight ? 'Save' : 'Save insight'}
          </Button>
        </Group>
      </Group>
      <ErrorAlert message={(saveTried && unfinished) || save.error?.message} title="The insight could not be saved" />
      <Group align="flex-start" grow>
        <TextInput
          label="Name"
          placeholder="Untitled insight"
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          maxLength={400}
        />
        <Textarea label="Description" autosize minRows={1} value={description} onChange={(e) => setDescription(e.currentTarget.value)} />
      </Group>
      {/* Five kinds are wider than a phone: the control scrolls there, not the page. */}
      <ScrollArea type="auto" scrollbars="x" offsetScrollbars>
        <SegmentedControl
          aria-label="Insight type"
          w={640}
          miw={640}
          value={source.kind}
          onChange={switchKind}
          data={[
            { value: 'TrendsQuery', label: 'Trends' },
            { value: 'FunnelsQuery', label: 'Funnels' },
            { value: 'RetentionQuery', label: 'Retention' },
            { value: 'LifecycleQuery', label: 'Lifecycle' },
            { value: 'StickinessQuery', label: 'Stickiness' },
          ]}
        />
      </ScrollArea>
      <Paper withBorder p="sm">
        {source.kind === 'TrendsQuery' ? (
          <TrendsEditor environmentId={environment.id} query={source} onChange={setSource} />
        ) : source.kind === 'RetentionQuery' ? (
          <RetentionEditor environmentId={environment.id} query={source} onChange={setSource} />
        ) : source.kind === 'LifecycleQuery' ? (
          <LifecycleEditor environmentId={environment.id} query={source} onChange={setSource} />
        ) : source.kind === 'StickinessQuery' ? (
          <StickinessEditor environmentId={environment.id} query={source} onChange={setSource} />
        ) : (
          <FunnelsEditor environmentId={environment.id} query={source} onChange={setSource} />
        )}
      </Paper>
      <Paper withBorder p="sm">
        <Text size="xs" c="dimmed" mb="xs" data-testid="insight-timezone">
          Dates and times in {environment.timezone}
        </Text>
        {unfinished ? (
          <Text c="dimmed" ta="center" py="xl" data-testid="insight-unfinished">
            {unfinished}
          </Text>
        ) : (
          <InsightViz environmentId={environment.id} query={query} height={320} detailed />
        )}
      </Paper>
      {insight && (
        <>
          <Divider />
          <InsightSubscriptions environmentId={environment.id} insightId={insight.id} shortId={insight.short_id} />
          <Divider />
          <InsightHistory environmentId={environment.id} insightId={insight.id} timeZone={environment.timezone} />
        </>
      )}
    </Stack>
  );
}
