// Reads one bot's updates by long-polling getUpdates (outbound only: no public URL), hands each to
// the commands, and makes the Bot API calls of their answers. Another program reading the same
// bot (Telegram answers 409 Conflict) or a refused token is logged once, shown as a problem on
// /readyz, and retried with a growing wait, never hammered. The token is in every URL: requests
// are labelled without it and every message is scrubbed.
import type { HttpClient } from '../../http/client.js';
import type { Logger } from '../../logger.js';
import type { Secrets } from '../../redact.js';
import type { BotCall, TgUpdate, UpdateAnswer } from './updates.js';

export interface PollerOptions {
  receiver: string;
  /** The bot's base URL, `<apiUrl>/bot<token>`, asked anew at each poll (a token file may change). */
  botUrl(): Promise<string>;
  /** The poller's own client, closed at stop. */
  client: HttpClient;
  secrets: Secrets;
  log: Logger;
  answer(update: TgUpdate, botUsername: string | undefined): UpdateAnswer;
  /** getUpdates' long-poll timeout (Telegram holds the request up to this long). */
  pollTimeoutS: number;
  /** Waits after a failure: doubled each time, from min to max. */
  backoff: { minMs: number; maxMs: number };
}

const MAX_UPDATE_BYTES = 4 * 1024 * 1024;
const CALL_TIMEOUT_MS = 10_000;

type Trouble = 'conflict' | 'token' | 'other';

export class CommandPoller {
  private stopped = false;
  private offset: number | undefined;
  private botUsername: string | undefined;
  private trouble: { kind: Trouble; text: string } | undefined;
  private waitMs: number;
  private wake: (() => void) | undefined;
  private loop: Promise<void> | undefined;

  constructor(private readonly o: PollerOptions) {
    this.waitMs = o.backoff.minMs;
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Stops polling and closes the client (its own: that ends a long poll in flight). */
  stop(): void {
    this.stopped = true;
    this.wake?.();
    void this.o.client.close();
  }

  /** For /readyz: why commands are not being read, while that lasts. */
  problem(): string | undefined {
    return this.trouble && this.trouble.kind !== 'other'
      ? `telegram receiver ${this.o.receiver}: ${this.trouble.text}`
      : undefined;
  }

  private async run(): Promise<void> {
    this.botUsername = await this.getMe();
    while (!this.stopped) {
      const got = await this.poll();
      if (this.stopped) return;
      if (got === undefined) {
        await this.sleep(this.waitMs);
        this.waitMs = Math.min(this.o.backoff.maxMs, this.waitMs * 2);
        continue;
      }
      this.recovered();
      for (const u of got) {
        this.offset = Math.max(this.offset ?? 0, u.update_id + 1);
        await this.handle(u);
      }
    }
  }

  private async getMe(): Promise<string | undefined> {
    const out = await this.call('getMe', {}, CALL_TIMEOUT_MS);
    const me = out.ok ? (out.result as { username?: unknown } | undefined) : undefined;
    return typeof me?.username === 'string' ? me.username : undefined;
  }

  /** One getUpdates; the updates, or undefined after a failure (already reported). */
  private async poll(): Promise<TgUpdate[] | undefined> {
    const body = {
      timeout: this.o.pollTimeoutS,
      allowed_updates: ['message', 'callback_query'],
      ...(this.offset !== undefined ? { offset: this.offset } : {}),
    };
    const out = await this.call('getUpdates', body, this.o.pollTimeoutS * 1000 + CALL_TIMEOUT_MS);
    if (out.ok) {
      if (Array.isArray(out.result)) return out.result as TgUpdate[];
      return this.report({ description: 'getUpdates answered no list' });
    }
    return this.report(out);
  }

  private report(out: { status?: number; description: string }): undefined {
    if (this.stopped) return undefined;
    const kind: Trouble =
      out.status === 409 ? 'conflict' : out.status === 401 || out.status === 404 ? 'token' : 'other';
    const text =
      kind === 'conflict'
        ? `another program reads this bot's updates (Telegram answers 409: ${out.description}); ` +
          'commands and buttons are not read until it stops'
        : kind === 'token'
          ? `Telegram refuses the bot token (HTTP ${out.status}); commands are not read`
          : `getUpdates failed (${out.description}); retrying`;
    if (this.trouble?.kind !== kind) {
      this.o.log.warn({ receiver: this.o.receiver, status: out.status }, `telegram commands: ${text}`);
      this.trouble = { kind, text };
    }
    return undefined;
  }

  private recovered(): void {
    this.waitMs = this.o.backoff.minMs;
    if (!this.trouble) return;
    this.o.log.info({ receiver: this.o.receiver }, 'telegram commands: reading updates again');
    this.trouble = undefined;
  }

  private async handle(u: TgUpdate): Promise<void> {
    let answer: UpdateAnswer;
    try {
      answer = this.o.answer(u, this.botUsername);
    } catch (err) {
      this.o.log.error(
        { receiver: this.o.receiver, updateId: u.update_id },
        `telegram command failed: ${(err as Error).message}`,
      );
      return;
    }
    if (answer.log) {
      const { user, username, action, ok, detail } = answer.log;
      this.o.log.info(
        { receiver: this.o.receiver, telegramUser: user, telegramUsername: username, action, ok },
        `telegram ${action} by ${username ? `@${username}` : user}: ${detail}`,
      );
    }
    for (const c of answer.calls) await this.send(c);
  }

  private async send(c: BotCall): Promise<void> {
    const out = await this.call(c.method, c.body, CALL_TIMEOUT_MS);
    if (!out.ok)
      this.o.log.warn(
        { receiver: this.o.receiver, method: c.method, status: out.status },
        `telegram ${c.method} failed: ${out.description}`,
      );
  }

  private async call(
    method: string,
    body: object,
    timeoutMs: number,
  ): Promise<{ ok: true; result: unknown } | { ok: false; status?: number; description: string }> {
    let base: string;
    try {
      base = await this.o.botUrl();
    } catch (err) {
      return { ok: false, description: this.o.secrets.scrub((err as Error).message) };
    }
    const out = await this.o.client.send({
      method: 'POST',
      url: `${base}/${method}`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      timeoutMs,
      maxBytes: MAX_UPDATE_BYTES,
      label: `telegram ${this.o.receiver} ${method}`,
    });
    const parsed = parseAnswer(out.ok ? out.response.body : out.response?.body);
    if (out.ok && parsed?.ok === true) return { ok: true, result: parsed.result };
    const description = this.o.secrets.scrub(
      typeof parsed?.description === 'string' ? parsed.description : out.ok ? 'not a Bot API answer' : out.message,
    );
    return { ok: false, status: out.ok ? out.response.status : out.status, description };
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

function parseAnswer(body: Buffer | undefined): { ok?: unknown; result?: unknown; description?: unknown } | undefined {
  if (!body) return undefined;
  try {
    return JSON.parse(body.toString('utf8')) as { ok?: unknown; result?: unknown; description?: unknown };
  } catch {
    return undefined;
  }
}
