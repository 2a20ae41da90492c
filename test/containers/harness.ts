// Shared pieces of the container suites: the skip/fail decision, labelled containers and
// networks that are always removed, and bounded HTTP polling of mapped ports.
import { inject } from 'vitest';
import { randomUUID } from 'node:crypto';
import { GenericContainer, type StartedTestContainer, getContainerRuntimeClient, ImageName } from 'testcontainers';
import { REQUIRE_DOCKER, RUN_LABEL, type DockerState } from './engine.js';
import { Teardown } from './cleanup.js';
import { waitFor } from '../support/processes.js';

export { IMAGES } from './engine.js';
export { Teardown } from './cleanup.js';

/** The global setup's finding; `skip` is true only when Docker is missing and not required. */
export function dockerForSuite(): { state: DockerState; skip: boolean } {
  const state = inject('docker');
  return { state, skip: !state.ready && !REQUIRE_DOCKER };
}

/** Throws (failing the suite) when Docker is required but not usable. */
export function assertDockerReady(state: DockerState): void {
  if (!state.ready) throw new Error(`REQUIRE_DOCKER=1 but ${state.reason}`);
}

/** A container of `image` carrying the run label, so the safety net can always find it. */
export function labelledContainer(state: DockerState, image: string): GenericContainer {
  return new GenericContainer(image).withLabels({ [RUN_LABEL]: state.runId });
}

/** Starts a container and registers its removal (with its anonymous volumes). */
export async function startRemoved(teardown: Teardown, container: GenericContainer): Promise<StartedTestContainer> {
  const started = await container.start();
  teardown.add(() => started.stop({ remove: true, removeVolumes: true }));
  return started;
}

/**
 * A labelled user-defined network (containers on it reach each other by alias), removed at
 * teardown. Join it with `.withNetworkMode(name).withNetworkAliases(alias)`.
 */
export async function startNetwork(state: DockerState, teardown: Teardown): Promise<string> {
  const client = await getContainerRuntimeClient();
  const name = `lfe-test-${randomUUID().slice(0, 8)}`;
  const network = await client.network.create({
    Name: name,
    Driver: 'bridge',
    CheckDuplicate: true,
    Labels: { [RUN_LABEL]: state.runId },
  });
  teardown.add(() => client.network.remove(network));
  return name;
}

/** The image's own HEALTHCHECK command, so a test can run it on a short interval. */
export async function imageHealthcheck(image: string): Promise<string[]> {
  const client = await getContainerRuntimeClient();
  const info = await client.image.inspect(ImageName.fromString(image));
  const test = info.Config.Healthcheck?.Test;
  if (!test || test[0] !== 'CMD')
    throw new Error(`${image} declares no exec-form HEALTHCHECK (got ${JSON.stringify(test)})`);
  return test;
}

export function baseUrl(container: StartedTestContainer, port: number): string {
  return `http://${container.getHost()}:${container.getMappedPort(port)}`;
}

/** GET url until `pick` returns a value (bounded). */
export async function pollHttp<T>(
  url: string,
  what: string,
  pick: (body: string, status: number) => T | undefined,
  timeoutMs = 30_000,
): Promise<T> {
  return waitFor(
    what,
    async () => {
      const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
      return pick(await res.text(), res.status);
    },
    { timeoutMs, intervalMs: 500 },
  );
}

/** GET a JSON API until `pick` returns a value (bounded). */
export async function pollJson<T>(
  url: string,
  what: string,
  pick: (body: any) => T | undefined,
  timeoutMs = 30_000,
): Promise<T> {
  return pollHttp(url, what, (body, status) => (status === 200 ? pick(JSON.parse(body)) : undefined), timeoutMs);
}

/** The container's recent output, for failure messages. */
export async function logsOf(container: StartedTestContainer): Promise<string> {
  const chunks: string[] = [];
  const stream = await container.logs({ tail: 40 });
  await new Promise<void>((resolve) => {
    stream
      .on('data', (c: Buffer | string) => chunks.push(c.toString()))
      .on('end', resolve)
      .on('error', () => resolve());
    setTimeout(resolve, 2_000);
  });
  return chunks.join('');
}
