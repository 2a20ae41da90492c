// The one error the exposition parser throws: where (line) and what, never the offending text.

export class ExpositionError extends Error {
  /** 1-based line of the input where parsing failed. */
  readonly line: number;

  constructor(line: number, reason: string) {
    // The offending text is not quoted: an echoed error page could hold anything.
    super(`line ${line}: ${reason}`);
    this.name = 'ExpositionError';
    this.line = line;
  }
}
