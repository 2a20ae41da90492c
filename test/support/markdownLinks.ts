// Relative links of Markdown files and whether each points at something: a file or folder of the
// repository, and for `#anchor` a heading (GitHub's anchors) or an explicit <a id> of the target.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { anchorOf } from '../../tools/docs/markdown.js';

export interface BrokenLink {
  file: string;
  link: string;
  why: string;
}

/** The text without fenced code blocks and inline code, where link syntax is only an example. */
function prose(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[ \t]*$/gm, '').replace(/(`+)[\s\S]*?\1/g, '');
}

export function linksOf(text: string): string[] {
  const body = prose(text);
  const out: string[] = [];
  for (const m of body.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push(m[1]!);
  for (const m of body.matchAll(/\b(?:src|href)="([^"]+)"/g)) out.push(m[1]!);
  for (const m of body.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)) out.push(m[1]!);
  return out;
}

/** Every anchor a Markdown file offers: headings as GitHub makes them unique, and <a id/name>. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const withoutFences = text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[ \t]*$/gm, '');
  for (const m of withoutFences.matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const base = anchorOf(m[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1'));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const m of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]!);
  return anchors;
}

const external = (link: string) => /^[a-z][a-z0-9+.-]*:/i.test(link);

/** The links of `file` (absolute path) that point at nothing inside `root`. */
export function brokenLinks(file: string, root: string): BrokenLink[] {
  const text = readFileSync(file, 'utf8');
  const rel = path.relative(root, file);
  const broken: BrokenLink[] = [];
  for (const link of linksOf(text)) {
    if (external(link)) continue;
    const [target = '', anchor] = link.split('#', 2) as [string, string | undefined];
    const resolved = target === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(target));
    if (!resolved.startsWith(root)) broken.push({ file: rel, link, why: 'leaves the repository' });
    else if (!existsSync(resolved)) broken.push({ file: rel, link, why: 'no such file' });
    else if (anchor !== undefined && anchor !== '') {
      if (statSync(resolved).isDirectory() || !resolved.endsWith('.md'))
        broken.push({ file: rel, link, why: 'anchor into a file that is not Markdown' });
      else if (!anchorsOf(readFileSync(resolved, 'utf8')).has(anchor))
        broken.push({ file: rel, link, why: `no heading for #${anchor}` });
    }
  }
  return broken;
}
