// What an Alertmanager-API handler gets and answers, independent of the HTTP router that mounts
// it (routes.ts): path parameters, query, parsed JSON body, the authenticated user.
import type { IncomingHttpHeaders } from 'node:http';

export interface ApiCall {
  path: Readonly<Record<string, string>>;
  params: URLSearchParams;
  body: unknown;
  /** The basic-auth user the request was let in as (a write always has one). */
  user: string | undefined;
  headers: IncomingHttpHeaders;
}

/** `body` undefined: an empty body (Alertmanager's 200 on DELETE, 404 on GET of an unknown silence). */
export interface ApiAnswer {
  status: number;
  body?: unknown;
}

/** A query parameter as Alertmanager's booleans read it (`true`/`false`, absent: the default). */
export function boolParam(params: URLSearchParams, name: string, dflt: boolean): boolean | { error: string } {
  const v = params.get(name);
  if (v === null || v === '') return dflt;
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  return { error: `${name} in query must be of type boolean: "${v}"` };
}

export const iso = (ms: number): string => new Date(ms).toISOString();

/** An RFC 3339 time as ms, or undefined when it is not one. */
export function parseTime(v: string): number | undefined {
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i.test(v)) return undefined;
  const t = Date.parse(v);
  return Number.isFinite(t) ? t : undefined;
}
