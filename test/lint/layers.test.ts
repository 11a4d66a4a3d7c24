import { readdirSync } from 'node:fs';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * The layer rules of eslint.config.js (docs/architecture.md) cover every feature folder of src/:
 * a feature importing the entry points above it is refused, whichever folder it is in.
 */
const LAYERS = new Set(['cli', 'http', 'lib', 'platform', 'posthog', 'sdk']);
const features = readdirSync(new URL('../../src', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !LAYERS.has(entry.name))
  .map((entry) => entry.name);

describe('layer rules', () => {
  const eslint = new ESLint();

  it.each(features)('refuse src/%s importing the command line above it', async (feature) => {
    // An existing file of the folder, so that the type-aware parser knows it.
    const file = readdirSync(new URL(`../../src/${feature}`, import.meta.url)).find((name) => name.endsWith('.ts'));
    expect(file).toBeDefined();
    const [result] = await eslint.lintText(`import { main } from '../cli/main.js';\nexport const probe = main;\n`, {
      filePath: `src/${feature}/${file}`,
    });
    expect(result!.messages.map((m) => m.message)).toContainEqual(expect.stringContaining('may not import a layer above it'));
  });

  it('refuse the platform importing a feature', async () => {
    const [result] = await eslint.lintText(
      `import { resolvedFrom } from '../../web-analytics/runners.js';\nexport const probe = resolvedFrom;\n`,
      {
        filePath: 'src/platform/db/schema.ts',
      },
    );
    expect(result!.messages.map((m) => m.message)).toContainEqual(expect.stringContaining('may not import a layer above it'));
  });
});
