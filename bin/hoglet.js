#!/usr/bin/env node
// Runs the TypeScript sources through tsx, so `npx hoglet …` works without a build step. It runs
// with node's defaults: `env -S`, which a shebang would need for the server's V8 setting, is not
// in every `env` (BusyBox's, say); see the README, "Memory".
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
