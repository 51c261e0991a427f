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
  /**
   * global: whether it is back at `previous` (false: putting it back failed, and the result's
   * warning says how to do it by hand, or `changedTo` says why it was left).
   */
  restored?: boolean;
  /**
   * global: the value found in force when the command ended, where it was not `value`: someone
   * changed it while the command ran, which did not run all its time at `value`. headroom leaves
   * such a value as it is (restored false), unless it is `previous` again (restored true).
   * `unset`: the setting had no value of its own left (the configuration file or default applied).
   */
  changedTo?: string;
}

export interface ServerSettingsRecord {
  asked: SettingAsked[];
  applied: SettingApplied[];
}
