// What a route of the exporter's HTTP server answers: the server and every module that adds
// pages or APIs speak these types, so the features need not import the server.
import type { IncomingHttpHeaders } from 'node:http';

export interface Reply {
  status: number;
  contentType: string;
  body: string | Buffer;
  headers?: Record<string, string>;
}

export interface RouteRequest {
  pathname: string;
  params: URLSearchParams;
  headers: IncomingHttpHeaders;
}

/** Answers the requests it owns; undefined for any other path, so the next route is tried. */
export type Route = (req: RouteRequest) => Promise<Reply | undefined> | Reply | undefined;
