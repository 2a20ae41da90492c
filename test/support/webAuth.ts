// Basic auth in front of a daemon as the tests set it up: the web config file (--web.config.file)
// with each user's bcrypt hash, and what a client sends: the Authorization header, or the
// credentials in the URL (as amtool and the CLI take them).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import bcrypt from 'bcryptjs';
import { stringify } from 'yaml';

export interface WebUser {
  username: string;
  password: string;
}

/** The bcrypt hash of `password` as `htpasswd -B` writes it ($2y$); cost 4 keeps tests quick. */
export const bcryptHash = (password: string) => bcrypt.hashSync(password, 4).replace(/^\$2b\$/, '$2y$');

/** Every user's name and hash, as a loaded web config holds them (basicAuthUsers). */
export const userHashes = (users: readonly WebUser[]) =>
  new Map(users.map((u) => [u.username, bcryptHash(u.password)]));

/** Writes `dir`/`file` with `basic_auth_users`: every user and its hash. Returns its path. */
export function writeWebConfig(dir: string, users: readonly WebUser[], file = 'web.yml'): string {
  const webPath = path.join(dir, file);
  writeFileSync(webPath, stringify({ basic_auth_users: Object.fromEntries(userHashes(users)) }));
  return webPath;
}

/** The Authorization header that logs `user` in. */
export const basicAuth = (user: WebUser) => ({
  authorization: `Basic ${Buffer.from(`${user.username}:${user.password}`).toString('base64')}`,
});

/** `url` with `user`'s credentials in it, without a trailing slash. */
export function withCredentials(url: string, user: WebUser): string {
  const u = new URL(url);
  u.username = encodeURIComponent(user.username);
  u.password = encodeURIComponent(user.password);
  return u.toString().replace(/\/$/, '');
}
