// Vitest global setup: looks for the Docker engine once per run (so a missing engine is ONE line,
// not one per file), hands the result to the suites, and at the end removes whatever a suite
// left behind with this run's label (the safety net behind each suite's own cleanup).
import { randomUUID } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { probeDocker, REQUIRE_DOCKER } from './engine.js';
import { removeLabelled } from './cleanup.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const state = await probeDocker(randomUUID());
  project.provide('docker', state);
  if (!state.ready) {
    const how = REQUIRE_DOCKER ? 'FAILING (REQUIRE_DOCKER=1)' : 'skipped (REQUIRE_DOCKER=1 makes this a failure)';
    console.warn(`test/containers: ${how}: ${state.reason}`);
    return async () => {};
  }
  return async () => {
    const left = await removeLabelled(state.runId);
    if (left > 0) console.warn(`test/containers: removed ${left} leftover container(s)/network(s) by label`);
  };
}
