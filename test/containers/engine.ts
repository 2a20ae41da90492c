// What the container tests need from the machine: a Docker engine and the local images built by
// scripts/containers/build-images.sh (no registry is reachable, so nothing is ever pulled).
// Team rule: without them the suites skip with one clear line, unless REQUIRE_DOCKER=1 (CI).
import { existsSync } from 'node:fs';

// No registry here: Ryuk cannot be pulled (we clean up ourselves, see cleanup.ts), and mapped
// ports are reached on loopback.
process.env.TESTCONTAINERS_RYUK_DISABLED ??= 'true';
process.env.TESTCONTAINERS_HOST_OVERRIDE ??= 'localhost';

export const REQUIRE_DOCKER = process.env.REQUIRE_DOCKER === '1';

export const IMAGES = {
  exporter: 'ledger-fleet-exporter:local',
  prometheus: 'lfe-local/prometheus:local',
  alertmanager: 'lfe-local/alertmanager:local',
} as const;

/** Label on every container and network a run creates; its value identifies the run. */
export const RUN_LABEL = 'ledger-fleet-exporter.test-run';

export interface DockerState {
  ready: boolean;
  /** Why the suites cannot run (empty when ready). */
  reason: string;
  runId: string;
}

function socketHint(): boolean {
  return Boolean(process.env.DOCKER_HOST) || existsSync('/var/run/docker.sock');
}

/** Finds the engine and the images; never throws. */
export async function probeDocker(runId: string): Promise<DockerState> {
  if (!socketHint())
    return { ready: false, reason: 'no Docker engine (no DOCKER_HOST, no /var/run/docker.sock)', runId };
  try {
    const { getContainerRuntimeClient, ImageName } = await import('testcontainers');
    const client = await getContainerRuntimeClient();
    const missing: string[] = [];
    for (const image of Object.values(IMAGES)) {
      if (!(await client.image.exists(ImageName.fromString(image)))) missing.push(image);
    }
    if (missing.length > 0)
      return {
        ready: false,
        reason: `images missing (${missing.join(', ')}): run scripts/containers/build-images.sh`,
        runId,
      };
    return { ready: true, reason: '', runId };
  } catch (err) {
    return { ready: false, reason: `no Docker engine answers (${(err as Error).message.split('\n')[0]})`, runId };
  }
}

declare module 'vitest' {
  export interface ProvidedContext {
    docker: DockerState;
  }
}
