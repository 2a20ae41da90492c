// What one configuration section owns (gatus style): its YAML keys and zod schema with the
// defaults, the checks that span its fields, its resolution into ExporterConfig and its secrets.
// A new section is one module beside this one plus one line in sections/index.ts.
import type * as z from 'zod';
import type { ExporterConfig } from '../exporterConfig.js';
import type { PathProblem } from '../problems.js';

export interface ResolveContext {
  /** Directory of the config file: relative paths resolve against it. */
  baseDir: string;
}

export interface ConfigSection<Shape extends z.ZodRawShape> {
  /** Top-level keys of the section, in the order `unknown key` messages list them. */
  shape: Shape;
  /** Rules spanning several fields, run on the expanded document even when the schema failed. */
  check?(doc: Record<string, unknown>): PathProblem[];
  /** The section's part of ExporterConfig; `raw` is the whole validated document. */
  resolve(raw: z.output<z.ZodObject<Shape>>, ctx: ResolveContext): Partial<ExporterConfig>;
  /** Secret values the resolved section holds (scrubbed from every output once accepted). */
  secrets?(config: ExporterConfig): string[];
}

export function defineSection<Shape extends z.ZodRawShape>(section: ConfigSection<Shape>): ConfigSection<Shape> {
  return section;
}
