// A reader that stops early (`evidence --summary | head`) closes the pipe: the next write to
// stdout fails with EPIPE. For a command line tool that is the reader saying "enough", not an
// error: exit quietly with success, as cat and grep do. Any other stdout error is thrown.
export function exitQuietlyOnClosedStdout(
  stream: NodeJS.WriteStream = process.stdout,
  exit: (code: number) => void = (c) => process.exit(c),
): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') return exit(0);
    throw err;
  });
}
