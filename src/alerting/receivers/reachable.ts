// The dry check of kinds whose API offers no check that sends nothing: only reachability is
// tested, with a HEAD on the URL's origin (never its path, which may be the secret).
import type { DryCheckIO, DryCheckResult } from './kind.js';

export async function checkReachable(kind: string, name: string, raw: string, io: DryCheckIO): Promise<DryCheckResult> {
  let origin: string;
  try {
    origin = new URL(raw).origin;
  } catch {
    return { receiver: name, ok: false, detail: `${kind} ${name}: invalid URL` };
  }
  const label = `${kind} ${name} (reachability)`;
  const out = await io.http({ method: 'HEAD', url: `${origin}/`, timeoutMs: io.timeoutMs, maxBytes: 1024, label });
  // Any HTTP answer proves the host is there; credentials cannot be checked without sending.
  if (out.ok || out.status !== undefined)
    return { receiver: name, ok: true, detail: 'reachable (credentials not checked: no check that sends nothing)' };
  return { receiver: name, ok: false, detail: `${label}: unreachable (${out.message})` };
}
