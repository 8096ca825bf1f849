import { APP_SETTINGS } from '@gw/app-settings';
import { settingNames } from '@gw/service-kit';
import { variablesRead } from '@gw/testing';
import { loadConfig } from './config';

describe('loadConfig', () => {
  it("reads exactly the variables of notifier's settings tables (APP_SETTINGS), which deploy-check and docs/configuration.md go by", () => {
    expect(variablesRead(loadConfig)).toEqual(settingNames(APP_SETTINGS['notifier']));
  });
});
