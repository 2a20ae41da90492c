// Which of V8's compilers a daemon runs, by the fleet's size. Once V8's optimising compiler
// (TurboFan), its baseline compiler (Sparkplug) or WebAssembly's optimising tier (undici's HTTP
// parser is WebAssembly) runs, the pages of the node binary holding their code stay resident, and
// their code takes heap: about 3 MB of a 1-node daemon's 64-65 MB RSS, most of it paid at start-up
// by Node's module loader. A large fleet needs the compiled poll path (docs/performance.md). The
// flags are read at every tier-up, so they can be switched at run time: off from the CLI's first
// line until the config is read, then on for a fleet larger than INTERPRETED_FLEET_NODES.
// (undici's parser compiled while they were off stays on WebAssembly's baseline tier when a reload
// grows the fleet.)
import { setFlagsFromString } from 'node:v8';

/**
 * Fleets of up to this many nodes run interpreted (no optimising or baseline compiler). A 1-node
 * daemon idle: 61.1-61.6 MB RSS against 64.4-64.8 MB compiled. 16 nodes at 2 s: 2.83 ms of CPU per
 * node-poll against 2.58 ms compiled (2.3% against 2.1% of a core): a poll of a small fleet is
 * mostly the round's fixed work.
 */
export const INTERPRETED_FLEET_NODES = 16;

/**
 * The JavaScript compilers the policy switches (V8 flag names; `--opt` is only a temporary alias of
 * `--turbofan` in V8); WebAssembly's is `--liftoff-only`.
 */
const COMPILERS = ['turbofan', 'sparkplug'] as const;

/** Whether the operator chose V8's compilers on node's command line (then they are theirs). */
export function compilersGiven(execArgv: readonly string[]): boolean {
  return execArgv.some((a) =>
    /^--(no[-_])?(opt|turbofan|sparkplug|maglev|jitless|lite[-_]mode|liftoff|liftoff[-_]only|always[-_](opt|turbofan|sparkplug))(=|$)/.test(
      a,
    ),
  );
}

/** Whether a fleet of `nodes` runs with the compilers on (unknown: a large fleet's). */
export function compilersOnFor(nodes?: number): boolean {
  return nodes === undefined || nodes > INTERPRETED_FLEET_NODES;
}

/** The V8 flags that switch the compilers for a fleet of `nodes`: none when the operator chose them. */
export function compilerFlags(execArgv: readonly string[], nodes?: number): string[] {
  if (compilersGiven(execArgv)) return [];
  const on = compilersOnFor(nodes);
  return [...COMPILERS.map((c) => `--${on ? '' : 'no-'}${c}`), `--${on ? 'no-' : ''}liftoff-only`];
}

/** Runs interpreted until applyCompilerPolicy(): call it first thing, before the modules load. */
export function holdCompilers(execArgv: readonly string[] = process.execArgv): void {
  for (const f of compilerFlags(execArgv, 0)) setFlagsFromString(f);
}

/** Switches the compilers for a fleet of `nodes` (at start and at each reload); returns the flags set. */
export function applyCompilerPolicy(execArgv: readonly string[] = process.execArgv, nodes?: number): string[] {
  const flags = compilerFlags(execArgv, nodes);
  for (const f of flags) setFlagsFromString(f);
  return flags;
}
