// The --set values of a run as the result records them (config.serverSettings); session/server-settings.ts applies them.

/** One --set NAME=VALUE as the user gave it. */
export interface SettingAsked {
  name: string;
  value: string;
}

/** What headroom did with it, recorded in the result (config.serverSettings). */
export interface SettingApplied extends SettingAsked {
  scope: 'session' | 'global';
  /** global: the value before the run, put back afterwards. */
  previous?: string;
  /** global: whether putting it back succeeded (false: the result's warning says how to do it by hand). */
  restored?: boolean;
}

export interface ServerSettingsRecord {
  asked: SettingAsked[];
  applied: SettingApplied[];
}
