// What every control route shares: its JSON error answer and its request body read against a
// zod schema (the reason in words when it does not fit).
import type { z } from 'zod';
import { jsonReply, type Reply } from './reply.js';

export const errorReply = (status: number, message: string): Reply => jsonReply({ error: message }, status);

/** The body as the schema reads it, or why not. */
export function parseBody<S extends z.ZodType>(schema: S, body: string): z.output<S> | string {
  let json: unknown;
  try {
    json = JSON.parse(body || '{}');
  } catch {
    return 'body must be JSON';
  }
  const r = schema.safeParse(json);
  return r.success
    ? r.data
    : `bad body: ${r.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ')}`;
}
