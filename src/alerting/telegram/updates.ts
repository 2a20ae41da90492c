// The part of Telegram's Update object the commands read (https://core.telegram.org/bots/api#update),
// and what answering one takes: Bot API calls to make and one log entry per action.
export interface TgUser {
  id: number;
  is_bot?: boolean;
  username?: string;
  first_name?: string;
}

export interface TgChat {
  id: number;
  type?: string;
  username?: string;
}

export interface TgMessage {
  message_id: number;
  chat: TgChat;
  from?: TgUser;
  text?: string;
  message_thread_id?: number;
  reply_to_message?: TgMessage;
  reply_markup?: unknown;
}

export interface TgCallbackQuery {
  id: string;
  from: TgUser;
  message?: TgMessage;
  data?: string;
}

export interface TgUpdate {
  update_id: number;
  message?: TgMessage;
  callback_query?: TgCallbackQuery;
}

/** One Bot API call an update's answer takes. */
export interface BotCall {
  method: 'sendMessage' | 'answerCallbackQuery';
  body: Record<string, unknown>;
}

/** What was done, for the log (the Telegram user, never the token). */
export interface ActionLog {
  user: number;
  username?: string;
  action: string;
  ok: boolean;
  detail: string;
}

export interface UpdateAnswer {
  calls: BotCall[];
  log?: ActionLog;
}

/** How a Telegram user is named in createdBy and the log: `telegram:@alice` or `telegram:123`. */
export const tgName = (u: TgUser): string => (u.username ? `telegram:@${u.username}` : `telegram:${u.id}`);
