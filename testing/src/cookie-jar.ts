/** One cookie as the server set it, with the attributes tests check. */
export type StoredCookie = { name: string; value: string; attributes: Record<string, string | true> };

/** Response bodies are checked field by field, so they are read untyped. */
export type ConsoleResponse = { status: number; headers: Headers; body: any };

/**
 * A browser's cookie handling, reduced to what the console API needs: it keeps what `Set-Cookie`
 * sets (dropping cookies set to expire), and sends them back on later requests to the same origin.
 */
export class CookieJar {
  private readonly cookies = new Map<string, StoredCookie>();

  /** Reads every `Set-Cookie` header of a response. */
  store(response: Response): void {
    for (const header of response.headers.getSetCookie()) {
      const [pair = '', ...rest] = header.split(';');
      const separator = pair.indexOf('=');
      const name = pair.slice(0, separator).trim();
      const value = pair.slice(separator + 1).trim();
      const attributes: Record<string, string | true> = {};
      for (const part of rest) {
        const [key = '', ...values] = part.split('=');
        attributes[key.trim().toLowerCase()] = values.length > 0 ? values.join('=').trim() : true;
      }
      const expires = typeof attributes.expires === 'string' ? Date.parse(attributes.expires) : Number.NaN;
      const expired = attributes['max-age'] === '0' || (!Number.isNaN(expires) && expires <= Date.now()) || value === '';
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, { name, value, attributes });
    }
  }

  get(name: string): StoredCookie | undefined {
    return this.cookies.get(name);
  }

  header(): string | undefined {
    if (this.cookies.size === 0) return undefined;
    return [...this.cookies.values()].map((cookie) => `${cookie.name}=${cookie.value}`).join('; ');
  }

  /** A copy, as a second browser tab that holds the same (possibly stale) cookies. */
  clone(): CookieJar {
    const copy = new CookieJar();
    for (const cookie of this.cookies.values()) copy.cookies.set(cookie.name, { ...cookie });
    return copy;
  }
}

/** A console API client over real HTTP that carries its cookies like a browser does. */
export class ConsoleClient {
  constructor(
    readonly baseUrl: string,
    readonly jar: CookieJar = new CookieJar(),
  ) {}

  async request(method: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<ConsoleResponse> {
    const headers: Record<string, string> = { ...extraHeaders };
    const cookie = this.jar.header();
    if (cookie) headers.cookie = cookie;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${this.baseUrl}/api${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    this.jar.store(response);
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  }

  get = (path: string) => this.request('GET', path);
  post = (path: string, body?: unknown, headers?: Record<string, string>) => this.request('POST', path, body, headers);
  put = (path: string, body?: unknown) => this.request('PUT', path, body);
  patch = (path: string, body?: unknown) => this.request('PATCH', path, body);
  delete = (path: string) => this.request('DELETE', path);
}
