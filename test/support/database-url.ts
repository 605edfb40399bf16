/** The migrated database that each test file's database is copied from. */
export const TEMPLATE_DATABASE = 'token_authority_template';

/** `url` pointing at another database on the same server. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** `url` pointing at another port (nothing listening there makes a database that is down). */
export function withPort(url: string, port: number): string {
  const parsed = new URL(url);
  parsed.port = String(port);
  return parsed.toString();
}
