#!/usr/bin/env -S node --max-semi-space-size=64
// Runs the TypeScript sources through tsx, so `npx hoglet …` works without a build step, with
// the V8 setting package.json's scripts give the server (see the README, "Memory").
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
