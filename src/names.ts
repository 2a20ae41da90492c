// Node and network names: they become label values and evidence file names, so the config and
// every reader of names (the evidence query API and CLI) apply this one rule.

export const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
export const NAME_MAX = 128;

export function nameReason(name: string): string | undefined {
  if (name.length === 0) return 'must not be empty';
  if (name.length > NAME_MAX) return `must be at most ${NAME_MAX} characters`;
  if (!NAME_RE.test(name))
    return 'must start with a letter or digit and contain only letters, digits, ".", "_" and "-"';
  return undefined;
}
