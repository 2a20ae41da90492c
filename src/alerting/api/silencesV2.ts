// Alertmanager's API v2 for silences (GET|POST /api/v2/silences, GET|DELETE /api/v2/silence/{id})
// and the exporter's acknowledgement (POST /api/v1/alerts/ack), with its JSON shapes and status
// codes, so amtool and Grafana's Alertmanager data source work unchanged. A POST carrying
// `X-Ledger-Replication: 1` is a peer's copy of a silence (same id, newest updatedAt wins).
import { z } from 'zod';
import { parseMatchers } from '../silences/matchers.js';
import type { Actor, Matcher, Silence, SilenceService, SilenceState, SilenceWrite } from '../silences/types.js';
import { REPLICATION_HEADER } from '../silences/types.js';
import { boolParam, iso, parseTime, type ApiAnswer, type ApiCall } from './call.js';

export interface SilenceApiDeps {
  silences: SilenceService;
  wallNow(): number;
  /** Resolves once the change is on disk (or its write was tried and is being retried). */
  saved(): Promise<void>;
}

const time = z.string().transform((v, ctx) => {
  const t = parseTime(v);
  if (t === undefined) ctx.addIssue({ code: 'custom', message: `must be an RFC 3339 date-time: "${v}"` });
  return t ?? 0;
});
const matcher = z.object({
  name: z.string(),
  value: z.string(),
  isRegex: z.boolean(),
  isEqual: z.boolean().default(true),
});
const postable = z.object({
  id: z.string().max(200).optional(),
  matchers: z.array(matcher).min(1),
  startsAt: time,
  endsAt: time,
  createdBy: z.string(),
  comment: z.string(),
});
const replicated = postable.extend({
  id: z.string().min(1).max(200),
  updatedAt: time,
  ackOf: z.string().max(200).optional(),
});
const ackBody = z.object({
  fingerprint: z.string().min(1).max(200),
  createdBy: z.string().max(4096).optional(),
  comment: z.string().max(4096).optional(),
});

/** The first problem of a body, as Alertmanager's validator phrases it ("createdBy in body is required"). */
function bodyError(error: z.ZodError): ApiAnswer {
  const i = error.issues[0]!;
  const where = i.path.length > 0 ? `${i.path.join('.')} in body` : 'body';
  const missing = i.code === 'invalid_type' && /received undefined/.test(i.message);
  return { status: 400, body: missing ? `${where} is required` : `${where}: ${i.message}` };
}

export function gettableSilence(s: Silence & { state: SilenceState }) {
  return {
    id: s.id,
    status: { state: s.state },
    updatedAt: iso(s.updatedAt),
    matchers: s.matchers.map((m) => ({ name: m.name, value: m.value, isRegex: m.isRegex, isEqual: m.isEqual })),
    startsAt: iso(s.startsAt),
    endsAt: iso(s.endsAt),
    createdBy: s.createdBy,
    comment: s.comment,
    annotations: s.ackOf ? { ackOf: s.ackOf } : {},
  };
}

const ORDER: Record<SilenceState, number> = { active: 1, pending: 2, expired: 3 };

/** Alertmanager's order: active (next to end first), pending (next to start first), expired (latest first). */
function bySilenceOrder(a: Silence & { state: SilenceState }, b: Silence & { state: SilenceState }): number {
  if (a.state !== b.state) return ORDER[a.state] - ORDER[b.state];
  if (a.state === 'active') return a.endsAt - b.endsAt;
  if (a.state === 'pending') return a.startsAt - b.startsAt;
  return b.endsAt - a.endsAt;
}

const sameMatcher = (a: Matcher, b: Matcher) =>
  a.name === b.name && a.value === b.value && a.isRegex === b.isRegex && a.isEqual === b.isEqual;

/** Filter matchers from the repeated `filter` parameter, or a 400. */
export function filterMatchers(params: URLSearchParams): Matcher[] | ApiAnswer {
  const out: Matcher[] = [];
  for (const f of params.getAll('filter')) {
    const parsed = parseMatchers(f);
    if (!Array.isArray(parsed)) return { status: 400, body: parsed.error };
    out.push(...parsed);
  }
  return out;
}

export function listSilences(deps: SilenceApiDeps, call: ApiCall): ApiAnswer {
  const filter = filterMatchers(call.params);
  if (!Array.isArray(filter)) return filter;
  const wanted: Partial<Record<SilenceState, boolean | { error: string }>> = {
    active: boolParam(call.params, 'active', true),
    pending: boolParam(call.params, 'pending', true),
    expired: boolParam(call.params, 'expired', true),
  };
  for (const w of Object.values(wanted)) if (typeof w === 'object') return { status: 400, body: w.error };
  const list = deps.silences
    .list(deps.wallNow())
    // As Alertmanager filters silences: each filter matcher is one of the silence's own.
    .filter((s) => wanted[s.state] === true && filter.every((f) => s.matchers.some((m) => sameMatcher(f, m))))
    .sort(bySilenceOrder);
  return { status: 200, body: list.map(gettableSilence) };
}

export function getSilence(deps: SilenceApiDeps, call: ApiCall): ApiAnswer {
  const s = deps.silences.get(call.path.id ?? '', deps.wallNow());
  return s ? { status: 200, body: gettableSilence(s) } : { status: 404 };
}

const actorOf = (call: ApiCall, via: Actor['via'] = 'api'): Actor => ({ user: call.user ?? 'anonymous', via });

async function answerWrite(deps: SilenceApiDeps, w: SilenceWrite): Promise<ApiAnswer> {
  if ('error' in w) return { status: w.status, body: w.error };
  await deps.saved();
  return { status: 200, body: { silenceID: w.id } };
}

export async function postSilence(deps: SilenceApiDeps, call: ApiCall): Promise<ApiAnswer> {
  const now = deps.wallNow();
  if (call.headers[REPLICATION_HEADER] === '1') {
    const r = replicated.safeParse(call.body);
    if (!r.success) return bodyError(r.error);
    const { ackOf, ...rest } = r.data;
    const copy: Silence = { ...rest, ...(ackOf !== undefined ? { ackOf } : {}) };
    if (!(copy.startsAt <= copy.endsAt))
      return { status: 400, body: 'invalid silence: end time must not be before start time' };
    deps.silences.applyRemote(copy, now);
    await deps.saved();
    return { status: 200, body: { silenceID: copy.id } };
  }
  const p = postable.safeParse(call.body);
  if (!p.success) return bodyError(p.error);
  const { id, ...fields } = p.data;
  return answerWrite(deps, deps.silences.upsert(id ? { id, ...fields } : fields, actorOf(call), now));
}

export async function deleteSilence(deps: SilenceApiDeps, call: ApiCall): Promise<ApiAnswer> {
  const w = deps.silences.expire(call.path.id ?? '', actorOf(call), deps.wallNow());
  if ('error' in w) return { status: w.status };
  await deps.saved();
  return { status: 200 };
}

export async function postAck(deps: SilenceApiDeps, call: ApiCall): Promise<ApiAnswer> {
  const b = ackBody.safeParse(call.body);
  if (!b.success) return bodyError(b.error);
  const { fingerprint, createdBy, comment } = b.data;
  const w = deps.silences.ack(fingerprint, actorOf(call), comment ?? '', deps.wallNow(), createdBy || undefined);
  return answerWrite(deps, w);
}
