// `ledger-fleet-exporter silence add|query|expire` and `ack`: the exporter's own client of its
// silences API (Alertmanager API v2 shapes, so it works against an Alertmanager too). Exit 0 when
// every request succeeded, 1 when the exporter refused or could not be reached, 2 on bad usage.
import { userInfo } from 'node:os';
import { matcherText, parseDurationArg, parseMatcher, parseMatchers } from '../alerting/acting/matcherArgs.js';
import type { Matcher } from '../alerting/silences/types.js';
import type { Secrets } from '../redact.js';
import { ApiError, apiTarget, callApi, type ApiTarget } from './apiClient.js';
import { UsageError, type Values } from './options.js';

/** A silence as GET /api/v2/silences answers it. */
export interface GettableSilence {
  id: string;
  status: { state: string };
  matchers: Matcher[];
  startsAt: string;
  endsAt: string;
  updatedAt?: string;
  createdBy: string;
  comment: string;
}

export interface SilenceIO {
  secrets: Secrets;
  write: (line: string) => void;
  problem: (line: string) => void;
  now?: () => number;
}

async function target(values: Values, io: SilenceIO): Promise<ApiTarget> {
  return apiTarget(values.url as string | undefined, values['http.config.file'] as string | undefined, io.secrets);
}

const author = (values: Values) => (values.author as string | undefined) ?? safeLogin();

function safeLogin(): string {
  try {
    return userInfo().username;
  } catch {
    return 'cli';
  }
}

function must<T>(r: { ok: true; value: T } | { ok: false; error: string }): T {
  if (!r.ok) throw new UsageError(r.error);
  return r.value;
}

function timeArg(text: string, flag: string): number {
  const t = Date.parse(text);
  if (!/^\d{4}-\d\d-\d\dT/.test(text) || Number.isNaN(t))
    throw new UsageError(`${flag}: expected an RFC3339 time, e.g. 2026-11-28T22:00:00Z`);
  return t;
}

export async function silenceAdd(values: Values, args: string[], io: SilenceIO): Promise<number> {
  const matchers = must(parseMatchers(args));
  const now = (io.now ?? Date.now)();
  const startsAt = values.start !== undefined ? timeArg(values.start as string, '--start') : now;
  if (values.end !== undefined && values.duration !== undefined)
    throw new UsageError('give --duration or --end, not both');
  const endsAt =
    values.end !== undefined
      ? timeArg(values.end as string, '--end')
      : startsAt + must(parseDurationArg((values.duration as string | undefined) ?? '1h'));
  if (endsAt <= startsAt) throw new UsageError('the silence must end after it starts');
  const body = {
    matchers,
    startsAt: new Date(startsAt).toISOString(),
    endsAt: new Date(endsAt).toISOString(),
    createdBy: author(values),
    comment: (values.comment as string | undefined) ?? '',
  };
  return reporting(io, async () => {
    const answer = (await callApi(await target(values, io), 'POST', '/api/v2/silences', io.secrets, body)) as {
      silenceID?: string;
    };
    io.write(answer?.silenceID ?? '');
    return 0;
  });
}

export async function silenceQuery(values: Values, args: string[], io: SilenceIO): Promise<number> {
  const filters = args.map((a) => matcherText(must(parseMatcher(a))));
  const output = (values.output as string | undefined) ?? 'simple';
  if (output !== 'simple' && output !== 'json') throw new UsageError('--output must be simple or json');
  const query = filters.map((f) => `filter=${encodeURIComponent(f)}`).join('&');
  return reporting(io, async () => {
    const all = (await callApi(
      await target(values, io),
      'GET',
      `/api/v2/silences${query ? `?${query}` : ''}`,
      io.secrets,
    )) as GettableSilence[];
    const wanted = (Array.isArray(all) ? all : []).filter((s) => (s.status?.state === 'expired') === !!values.expired);
    wanted.sort((a, b) => Date.parse(a.endsAt) - Date.parse(b.endsAt));
    if (values.quiet) for (const s of wanted) io.write(s.id);
    else if (output === 'json') io.write(JSON.stringify(wanted));
    else for (const line of silenceTable(wanted)) io.write(line);
    return 0;
  });
}

export async function silenceExpire(values: Values, args: string[], io: SilenceIO): Promise<number> {
  if (args.length === 0) throw new UsageError('usage: ledger-fleet-exporter silence expire <id>...');
  return reporting(io, async () => {
    const t = await target(values, io);
    let failed = 0;
    for (const id of args) {
      try {
        await callApi(t, 'DELETE', `/api/v2/silence/${encodeURIComponent(id)}`, io.secrets);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        io.problem(err.message);
        failed++;
      }
    }
    return failed === 0 ? 0 : 1;
  });
}

export async function ackAlert(values: Values, args: string[], io: SilenceIO): Promise<number> {
  if (args.length !== 1) throw new UsageError('usage: ledger-fleet-exporter ack <fingerprint> [--comment <text>]');
  const body = {
    fingerprint: args[0],
    createdBy: author(values),
    comment: (values.comment as string | undefined) ?? '',
  };
  return reporting(io, async () => {
    const answer = (await callApi(await target(values, io), 'POST', '/api/v1/alerts/ack', io.secrets, body)) as {
      silenceID?: string;
    };
    io.write(answer?.silenceID ?? '');
    return 0;
  });
}

/** An ApiError is the exporter's (or the network's) answer: said on stderr, exit 1. */
async function reporting(io: SilenceIO, run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    io.problem(`error: ${err.message}`);
    return 1;
  }
}

/** amtool's table: ID, Matchers, Ends At, Created By, Comment. */
export function silenceTable(silences: readonly GettableSilence[]): string[] {
  const rows = [
    ['ID', 'Matchers', 'Ends At', 'Created By', 'Comment'],
    ...silences.map((s) => [
      s.id,
      s.matchers.map(matcherText).join(' '),
      s.endsAt.replace(/\.\d+Z$/, 'Z'),
      s.createdBy,
      s.comment.replace(/\s+/g, ' '),
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) =>
    r
      .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}
