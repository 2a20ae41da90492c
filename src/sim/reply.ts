/** An HTTP answer computed by a pure function, written by the server layer. */
export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export const JSON_TYPE = 'application/json';
export const TEXT_TYPE = 'text/plain; charset=utf-8';

export function jsonReply(value: unknown, status = 200): Reply {
  return { status, headers: { 'content-type': JSON_TYPE }, body: JSON.stringify(value) };
}

export function textReply(status: number, body: string): Reply {
  return { status, headers: { 'content-type': TEXT_TYPE }, body };
}
