// Capacity check at start-up and reload: every node holds one socket, plus the server's
// connections, evidence files and outbound calls. Past the open-files limit new connections
// fail with EMFILE, which would look like nodes going down; warn before that happens.
import { readFileSync } from 'node:fs';

/** Descriptors kept free beside the node sockets (server, evidence, receivers, agent platform). */
export const OPEN_FILES_HEADROOM = 256;

/** The soft and hard "Max open files" of a /proc/<pid>/limits text; undefined when absent. */
export function parseOpenFilesLimit(limits: string): { soft: number; hard: number } | undefined {
  const m = /^Max open files\s+(\S+)\s+(\S+)/m.exec(limits);
  if (!m) return undefined;
  const value = (v: string) => (v === 'unlimited' ? Infinity : Number(v));
  const soft = value(m[1]!);
  const hard = value(m[2]!);
  return Number.isNaN(soft) || Number.isNaN(hard) ? undefined : { soft, hard };
}

/** A warning when `nodes` sockets plus headroom do not fit under the soft limit. */
export function openFilesWarning(nodes: number, limit: { soft: number; hard: number } | undefined): string | undefined {
  if (!limit) return undefined;
  const needed = nodes + OPEN_FILES_HEADROOM;
  if (needed <= limit.soft) return undefined;
  const hint = limit.hard >= needed ? ` (the hard limit, ${limit.hard}, allows it)` : '';
  return (
    `open-files limit ${limit.soft} cannot hold one socket per node (${nodes}) plus ${OPEN_FILES_HEADROOM} of ` +
    `headroom: ` +
    `raise it to at least ${needed}${hint}, e.g. LimitNOFILE= in the systemd unit or docker run --ulimit ` +
    `nofile=${needed}:${needed}`
  );
}

/** This process's limit, from /proc/self/limits (Linux); undefined elsewhere. */
export function readOpenFilesLimit(): { soft: number; hard: number } | undefined {
  try {
    return parseOpenFilesLimit(readFileSync('/proc/self/limits', 'utf8'));
  } catch {
    return undefined;
  }
}
