/** Loads PostHog's flag contract corpus (read-only fixtures shared by the whole repo). */
import { readFileSync } from 'node:fs';

export const CORPUS_DIR = new URL('../fixtures/flags-contract/', import.meta.url);

export function readCorpusFile<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(name, CORPUS_DIR), 'utf8')) as T;
}

interface ManifestArtifact {
  path: string;
  case_ids?: string[];
}

/** Case ids the manifest lists for a corpus file (e.g. "v1_evaluation.json"). */
export function manifestCaseIds(corpusFile: string): string[] {
  const manifest = readCorpusFile<{ artifacts: ManifestArtifact[] }>('manifest.json');
  const artifact = manifest.artifacts.find((entry) => entry.path === `corpus/${corpusFile}`);
  if (!artifact?.case_ids) throw new Error(`manifest has no case ids for ${corpusFile}`);
  return artifact.case_ids;
}
