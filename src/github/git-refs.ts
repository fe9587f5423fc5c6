/**
 * Ref reads over git's smart HTTP protocol v2 (`ls-refs`), instead of REST requests that GitHub charges to
 * the job's rate limit: the branch head the gateway checks on every call, and the snapshot of every ref the
 * verification compares.
 *
 * GitHub does not count git operations against the REST API's rate limit (its support, in
 * https://github.com/orgs/community/discussions/44515: "Git operations do not consume part of your API rate
 * limit"). Over HTTP a v2 client first asks for the capability advertisement (`GET info/refs` with
 * `Git-Protocol: version=2`) and then makes its commands as POSTs to `git-upload-pack`
 * (https://git-scm.com/docs/protocol-v2#_http_transport, https://git-scm.com/docs/protocol-v2#_ls_refs):
 * the advertisement is asked once, so a ref read is one POST, answered with the refs under the prefixes
 * asked for. Plain HTTP with fetch: no git process, no file on disk.
 *
 * A failure of any kind (no v2, refused, unreachable, a malformed answer) throws GitRefsUnavailable and
 * marks the reader failed: the caller reads by REST from then on. Behind an HTTP proxy (HTTPS_PROXY), which
 * Node's fetch does not follow, the reader is not used at all.
 */
export interface GitRefOptions {
  /** the repository's clone URL, e.g. https://github.com/OWNER/REPO.git */
  url: string;
  token: string;
  /** longest one request may take; default 10 s */
  timeoutMs?: number;
}

export class GitRefsUnavailable extends Error {
  override name = 'GitRefsUnavailable';
}

const SHA = /^[0-9a-f]{40}$/;

/** One pkt-line: four hex digits of length (itself included), then the data. */
const pkt = (line: string): string => {
  const length = Buffer.byteLength(line) + 4;
  return length.toString(16).padStart(4, '0') + line;
};

/** The data lines of a pkt-line stream; `0000` (flush), `0001` (delim), `0002` (end) end nothing here. */
export function pktLines(body: Buffer): string[] {
  const lines: string[] = [];
  let at = 0;
  while (at < body.length) {
    const length = Number.parseInt(body.subarray(at, at + 4).toString('latin1'), 16);
    if (!Number.isInteger(length) || body.subarray(at, at + 4).length < 4)
      throw new GitRefsUnavailable('malformed pkt-line');
    if (length < 4) {
      at += 4;
      continue;
    }
    if (at + length > body.length) throw new GitRefsUnavailable('truncated pkt-line');
    lines.push(body.subarray(at + 4, at + length).toString('utf8'));
    at += length;
  }
  return lines;
}

export class GitRefReader {
  /** set when a request failed: every later read throws at once */
  failed = false;
  /** HTTP requests made (the advertisement once, then one POST a read) */
  requests = 0;
  private advertised: Promise<void> | null = null;

  constructor(private readonly options: GitRefOptions) {
    if (process.env.HTTPS_PROXY || process.env.https_proxy) this.failed = true;
  }

  /** Every ref under these prefixes (e.g. `refs/heads/main`, `refs/`): full name to the SHA it points at. */
  async list(prefixes: string[]): Promise<Map<string, string>> {
    if (this.failed) throw new GitRefsUnavailable('git refs unavailable');
    try {
      this.advertised ??= this.advertise();
      await this.advertised;
      const body =
        pkt('command=ls-refs\n') +
        pkt('object-format=sha1\n') +
        '0001' +
        prefixes.map((p) => pkt(`ref-prefix ${p}\n`)).join('') +
        '0000';
      const answer = await this.request('POST', '/git-upload-pack', body);
      const refs = new Map<string, string>();
      for (const line of pktLines(answer)) {
        if (line.startsWith('ERR ')) throw new GitRefsUnavailable(`git: ${line.slice(4).trim()}`);
        const [sha, name] = line.replace(/\n$/, '').split(' ');
        if (!sha || !name || !SHA.test(sha)) throw new GitRefsUnavailable('malformed ls-refs line');
        // a ref-prefix is a prefix of the name, not of its components: the caller keeps what it asked for
        refs.set(name, sha);
      }
      return refs;
    } catch (error) {
      this.failed = true;
      throw error instanceof GitRefsUnavailable
        ? error
        : new GitRefsUnavailable(`git refs unavailable: ${(error as Error).message}`);
    }
  }

  private async advertise(): Promise<void> {
    const lines = pktLines(await this.request('GET', '/info/refs?service=git-upload-pack', null));
    // git-http-backend leaves out v0's "# service=" line for v2; GitHub may send it: either way skip it
    const rest = lines.filter((l) => !l.startsWith('# service='));
    if (rest[0]?.trim() !== 'version 2' || !rest.some((l) => /^ls-refs(=|\n|$)/.test(l)))
      throw new GitRefsUnavailable('the server does not speak git protocol v2 with ls-refs');
  }

  private async request(method: 'GET' | 'POST', path: string, body: string | null): Promise<Buffer> {
    this.requests += 1;
    const auth = Buffer.from(`x-access-token:${this.options.token}`).toString('base64');
    const response = await fetch(this.options.url + path, {
      method,
      headers: {
        authorization: `Basic ${auth}`,
        'git-protocol': 'version=2',
        ...(body === null
          ? {}
          : {
              'content-type': 'application/x-git-upload-pack-request',
              accept: 'application/x-git-upload-pack-result',
            }),
      },
      ...(body === null ? {} : { body }),
      redirect: 'error',
      signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
    });
    const bytes = Buffer.from(await response.arrayBuffer());
    if (!response.ok) throw new GitRefsUnavailable(`git ${method} answered HTTP ${response.status}`);
    return bytes;
  }
}
