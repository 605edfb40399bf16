import { ConfigError, type Config } from '../config/config.js';
import { jsonObject, settingText } from '../config/setting-value.js';
import { scopeCatalogSchema, type ScopeCatalog } from '../domain/scope-catalog.js';

/**
 * SCOPE_CATALOG, read and checked at start like every setting: a ConfigError names each problem
 * (the audience and scope), and an audience the service does not issue for is one.
 */
export async function loadScopeCatalog(
  config: Pick<Config, 'SCOPE_CATALOG' | 'TOKEN_AUDIENCES'>,
): Promise<ScopeCatalog> {
  if (config.SCOPE_CATALOG === undefined) return {};
  const text = await settingText('SCOPE_CATALOG', config.SCOPE_CATALOG);
  const parsed = scopeCatalogSchema.safeParse(
    jsonObject('SCOPE_CATALOG', text, 'an object of audiences, each an object of scopes'),
  );
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map(
        (issue) => `SCOPE_CATALOG: ${issue.path.join('.')}: ${issue.message}`,
      ),
    );
  }
  const strangers = Object.keys(parsed.data).filter((a) => !config.TOKEN_AUDIENCES.includes(a));
  if (strangers.length > 0) {
    throw new ConfigError(
      strangers.map((a) => `SCOPE_CATALOG: audience "${a}" is not one of TOKEN_AUDIENCES`),
    );
  }
  return parsed.data;
}
