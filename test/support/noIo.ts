// Setup of the unit project (npm run test:unit): a unit test starts no process and opens no
// socket, so it runs in a second and never waits for a port, a binary or a timer of a server.
// Anything that would is refused here with a message naming it, so a test that needs a socket
// or a process cannot slip into the unit set by its name alone.
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

function refuse(what: string): never {
  throw new Error(`${what} in a unit test: name the file *.test.ts (not *.unit.test.ts) if it needs one`);
}

const PROCESS_FUNCTIONS = ['spawn', 'spawnSync', 'fork', 'exec', 'execSync', 'execFile', 'execFileSync'] as const;
for (const name of PROCESS_FUNCTIONS) {
  (childProcess as unknown as Record<string, unknown>)[name] = () => refuse(`child_process.${name}`);
}
net.Server.prototype.listen = function listen(): never {
  return refuse('listening on a socket');
};
net.Socket.prototype.connect = function connect(): never {
  return refuse('connecting a socket');
};
// ESM named imports of builtins (import { spawn } from 'node:child_process') see the change too.
syncBuiltinESMExports();
