// Removal of everything a container test started, also when the test failed.
import { getContainerRuntimeClient } from 'testcontainers';
import { RUN_LABEL } from './engine.js';

/** Removes containers (forcibly, with their anonymous volumes) and networks labelled with runId. */
export async function removeLabelled(runId: string): Promise<number> {
  const client = await getContainerRuntimeClient();
  const filters = { label: [`${RUN_LABEL}=${runId}`] };
  const docker = client.container.dockerode;
  let removed = 0;
  for (const info of await docker.listContainers({ all: true, filters })) {
    await docker
      .getContainer(info.Id)
      .remove({ force: true, v: true })
      .catch(() => undefined);
    removed++;
  }
  for (const info of await docker.listNetworks({ filters })) {
    await docker
      .getNetwork(info.Id)
      .remove()
      .catch(() => undefined);
    removed++;
  }
  return removed;
}

/** Collects stop functions and runs them all, newest first, even when some fail. */
export class Teardown {
  private readonly steps: Array<() => Promise<unknown>> = [];

  add(step: () => Promise<unknown>): void {
    this.steps.push(step);
  }

  async run(): Promise<void> {
    const errors: unknown[] = [];
    for (const step of this.steps.splice(0).reverse()) {
      await step().catch((err: unknown) => errors.push(err));
    }
    if (errors.length > 0) throw new AggregateError(errors, `${errors.length} container cleanup step(s) failed`);
  }
}
