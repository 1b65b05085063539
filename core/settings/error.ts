/**
 * A setting that cannot be used. The message names the setting and what is wrong with it, never
 * its value: settings hold secrets, and this message is printed, logged and answered.
 */
export class SettingsError extends Error {
  override name = "SettingsError";

  constructor(
    readonly setting: string,
    problem: string,
  ) {
    super(`${setting} ${problem}`);
  }
}
