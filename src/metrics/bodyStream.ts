// The bytes of a streamed /metrics body on their way to the client: held until the reply's
// headers are sent (pipe), then passed on as they come. Each run of bytes carries the callback
// that gives its memory back once the socket has it; a body that ends within its first chunk is
// taken whole instead (sent with its length, as a body rendered whole always was).

/** Where a streamed body goes (the HTTP response). */
export interface BodyOut {
  /** `done` once `bytes` are no longer read (sent, or the connection is gone). */
  write(bytes: Buffer, done: () => void): void;
  end(): void;
  /** The body failed after its headers went out: the client must see a broken body, never a short one. */
  destroy(err: Error): void;
}

export class BodyStream {
  private held: Array<{ bytes: Buffer; done: () => void }> = [];
  private out: BodyOut | undefined;
  private ended = false;
  private failed: Error | undefined;

  write(bytes: Buffer, done: () => void): void {
    if (this.failed) return done();
    if (this.out) return this.out.write(bytes, done);
    this.held.push({ bytes, done });
  }

  end(): void {
    this.ended = true;
    this.out?.end();
  }

  fail(err: Error): void {
    if (this.failed || this.ended) return;
    this.failed = err;
    this.letGo();
    this.out?.destroy(err);
  }

  /** Sends what was held and what comes from now on to `out`. */
  pipe(out: BodyOut): void {
    if (this.out) throw new Error('body already piped');
    this.out = out;
    if (this.failed) return out.destroy(this.failed);
    const held = this.held;
    this.held = [];
    for (const { bytes, done } of held) out.write(bytes, done);
    if (this.ended) out.end();
  }

  /** Everything written so far, copied into one Buffer (the memory it was in is given back). */
  whole(): Buffer {
    const body = Buffer.concat(this.held.map((h) => h.bytes));
    this.letGo();
    return body;
  }

  private letGo(): void {
    const held = this.held;
    this.held = [];
    for (const h of held) h.done();
  }
}
