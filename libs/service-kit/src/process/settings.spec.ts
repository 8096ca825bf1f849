import { defineSettings, readSetting, readSettings, setting, settingNames } from './settings';

const TABLE = defineSettings({
  PORT: setting.int(8080, 'the port'),
  LIMIT: setting.int(3, 'a limit', { min: 1 }),
  HOST: setting.string('0.0.0.0', 'the address'),
  URL: setting.optional('a URL; unset: none'),
  ON: setting.bool(true, 'a switch'),
});

describe('readSettings', () => {
  it('gives each variable its default when unset or empty, in a frozen object', () => {
    const values = readSettings({ HOST: '', URL: '' }, TABLE);
    expect(values).toEqual({ PORT: 8080, LIMIT: 3, HOST: '0.0.0.0', URL: undefined, ON: true });
    expect(Object.isFrozen(values)).toBe(true);
  });

  it('reads each kind as env-readers do', () => {
    expect(readSettings({ PORT: '-1', LIMIT: '7', HOST: 'h', URL: 'u', ON: 'FALSE' }, TABLE)).toEqual({
      PORT: -1,
      LIMIT: 7,
      HOST: 'h',
      URL: 'u',
      ON: false,
    });
  });

  it("stops on a bad value with env-readers' message, or on an int below its least value", () => {
    expect(() => readSettings({ PORT: '80a' }, TABLE)).toThrow('PORT must be a whole number, got "80a"');
    expect(() => readSettings({ ON: 'yes' }, TABLE)).toThrow('ON must be true or false, got "yes"');
    expect(() => readSettings({ LIMIT: '0' }, TABLE)).toThrow('LIMIT must be at least 1, got 0');
  });

  it('reads one variable alone (readSetting), leaving the others unread', () => {
    expect(readSetting({ LIMIT: '0', ON: '0' }, TABLE, 'ON')).toBe(false);
  });
});

describe('settingNames', () => {
  it('lists the names of some tables once each, sorted', () => {
    expect(settingNames([TABLE, defineSettings({ HOST: setting.string('x', 'again'), A: setting.optional('a') })])).toEqual([
      'A',
      'HOST',
      'LIMIT',
      'ON',
      'PORT',
      'URL',
    ]);
  });
});
