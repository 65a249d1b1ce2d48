/**
 * The report formats of `syncline validate`, by name: what the --format option accepts (and
 * completion offers), kept apart from the writers so the command line knows them without loading
 * any. validate-command.ts maps each name to its writer; the type makes sure none is missing.
 */
export const validateFormats = ['text', 'json', 'github', 'junit', 'sarif'] as const;

export type ValidateFormat = (typeof validateFormats)[number];
