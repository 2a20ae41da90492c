// String.prototype.localeCompare's order for node and network names, without ICU where it cannot
// differ. A collator pages in ICU's collation data (3.2 MB of RSS in every daemon, a 1-node one
// included), but for names of lower-case ASCII letters, digits, '-' and '.' ICU's root order (and
// English's, which tailors nothing there) is the order of their code units: '-' < '.' < digits <
// letters, no case or accent levels. Any other name, or a process whose locale may tailor that
// order, is compared by the collator, built at the first such comparison.

const PLAIN = /^[-.0-9a-z]*$/;

/** Whether the process's locale orders PLAIN names as ICU's root does (unset, C, POSIX or English). */
export function rootOrderLocale(env: NodeJS.ProcessEnv = process.env): boolean {
  const locale = env.LC_ALL || env.LC_MESSAGES || env.LANG || '';
  return locale === '' || /^(C|POSIX|en)([._@-]|$)/.test(locale);
}

let collator: Intl.Collator | undefined;
const plainFast = rootOrderLocale();

/** a.localeCompare(b)'s sign. */
export function compareNames(a: string, b: string): number {
  if (plainFast && PLAIN.test(a) && PLAIN.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  return (collator ??= new Intl.Collator()).compare(a, b);
}
