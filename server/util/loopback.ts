/**
 * Which hosts count as this machine: plain HTTP is acceptable only to them (the model hub's test
 * hub, a remote VLM on the same machine or through an SSH tunnel). Names other than `localhost`
 * are not resolved: a DNS answer is not a reason to send a key in clear.
 */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

/**
 * Why `url` may not carry page images and an API key: not http(s), or plain HTTP to a host that
 * is not this machine. Undefined when it may.
 */
export function remoteUrlProblem(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `"${url.slice(0, 200)}" is not a URL`;
  }
  if (u.protocol === 'https:') return undefined;
  if (u.protocol !== 'http:') return `${u.protocol} is not http(s)`;
  if (isLoopbackHost(u.hostname)) return undefined;
  return `plain http:// is accepted only to this machine (127.0.0.1, ::1, localhost); ${u.host} needs https:// (the page images and the API key would go in clear), or reach it through an SSH tunnel to a loopback port`;
}
