import { APP_SETTINGS, AppName } from '@gw/app-settings';
import { settingNames, SettingsTable } from '@gw/service-kit';

/** The environment variables an app reads, and the defaults of the whole-number ones. */
export interface AppEnv {
  names: Set<string>;
  intDefaults: Map<string, number>;
}

/** What an app reading these settings tables reads (libs/service-kit settings.ts). */
export function appEnvOf(tables: readonly SettingsTable[]): AppEnv {
  const intDefaults = new Map<string, number>();
  for (const table of tables) {
    for (const [name, entry] of Object.entries(table)) if (entry.kind === 'int') intDefaults.set(name, entry.default);
  }
  return { names: new Set(settingNames(tables)), intDefaults };
}

/** What apps/<app>/src/config.ts reads: the app's settings tables in libs/app-settings (APP_SETTINGS). */
export function appEnv(app: AppName): AppEnv {
  return appEnvOf(APP_SETTINGS[app]);
}
