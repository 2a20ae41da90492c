// The components' lifecycle in the pipeline: started in order (never half-started: a start that
// fails stops what runs, then the error goes on), stopped in order at shutdown, closed last.
import type { Server } from 'node:http';
import type { HttpClient } from '../http/client.js';
import type { Logger } from '../logger.js';
import type { Scheduler } from '../schedule/scheduler.js';
import type { DaemonComponent, DaemonContext } from './component.js';

/**
 * Starts the components in order. Never half-started: when one fails, `abort` stops the listener,
 * polling and the components started, then the error goes on to the caller.
 */
export async function startAll(
  components: DaemonComponent[],
  ctx: DaemonContext,
  abort: (started: DaemonComponent[]) => Promise<void>,
): Promise<void> {
  const started: DaemonComponent[] = [];
  try {
    for (const c of components) {
      started.push(c);
      await c.start?.(ctx);
    }
  } catch (err) {
    const scrub = (e: unknown) => ctx.secrets.scrub((e as Error).message);
    ctx.logger.error({ component: started.at(-1)?.name, err: scrub(err) }, 'a component failed to start: stopping');
    await abort(started).catch((e: unknown) =>
      ctx.logger.error({ err: scrub(e) }, 'stopping after the failed start failed too'),
    );
    throw err;
  }
}

/** Closes components in reverse order (what opened first, such as the evidence store, closes last). */
export async function closeAll(components: DaemonComponent[]): Promise<void> {
  for (const c of [...components].reverse()) await c.close?.();
}

/**
 * Stops in order: no new work, probes in flight get graceMs, components stop, then close, sockets.
 * Only the components `started` (default all) are halted and stopped; all are closed.
 */
export async function shutdown(
  parts: {
    scheduler: Scheduler;
    components: DaemonComponent[];
    started?: DaemonComponent[];
    server: Server;
    client: HttpClient;
    log: Logger;
  },
  graceMs: number,
): Promise<void> {
  const started = parts.started ?? parts.components;
  for (const c of started) c.halt?.();
  const finished = await parts.scheduler.stop(graceMs);
  if (!finished) parts.log.warn({ graceMs }, 'probes still in flight at shutdown were abandoned');
  for (const c of started) await c.stop?.();
  await closeAll(parts.components);
  await new Promise<void>((resolve) => {
    parts.server.close(() => resolve());
    parts.server.closeAllConnections?.();
  });
  await parts.client.close();
}
